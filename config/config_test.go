package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/configkey"
	"github.com/billsnap/billsnap/lake"
	"github.com/billsnap/billsnap/schedule"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadLayersDefaultsFileEnv(t *testing.T) {
	c, err := Load("testdata/good.yml", env(map[string]string{EnvFrontURL: "https://env.example.com"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL != "https://billing.example.com" || c.FrontURL != "https://env.example.com" || c.Concurrency != 16 {
		t.Errorf("file and env not layered: %+v", c)
	}
	if c.Retry.MaxAttempts != 4 || c.Retry.InitialDelay != 100*time.Millisecond || c.Retry.MaxDelay != Default().Retry.MaxDelay {
		t.Errorf("nested file keys not merged over defaults: %+v", c.Retry)
	}
	if c.Parquet.Compression != "zstd" || c.Parquet.PageSize != 512<<10 || c.Parquet.Writers != 2 {
		t.Errorf("parquet: %+v", c.Parquet)
	}
	if c.Collections["customers"] != "/v2/Customers/" {
		t.Errorf("collections: %v", c.Collections)
	}
	inv := c.Fields["invoices"]
	if inv["invoice_number"] != (catalog.FieldMap{Field: "InvoiceNo"}) || inv["po_number"] != (catalog.FieldMap{Field: "PurchaseOrder", Type: "string"}) {
		t.Errorf("fields, short and long form: %+v", c.Fields)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("good.yml does not validate: %v", err)
	}
}

func TestBadFilesNameTheProblem(t *testing.T) {
	for file, want := range map[string]string{
		"unknown-key.bad.yml":        `line 2: unknown key "concurency" (did you mean "concurrency"?)`,
		"unknown-nested-key.bad.yml": `line 3: unknown key "backoff"`,
		"nested-typo.bad.yml":        `line 3: unknown key "max_atempts" (did you mean "retry.max_attempts"?)`,
		"list-typo.bad.yml":          `line 4: unknown key "spce" (did you mean "spec"?)`,
		"api-key.bad.yml":            `line 2: key "api_key": the API key is never read from the config file`,
		"wrong-type.bad.yml":         `line 1: concurrency: want a whole number such as 8, got "many"`,
		"syntax.bad.yml":             "line 1",
		"bad-size.bad.yml":           "line 2: key parquet.page_size: want a size",
		"fields-key.bad.yml":         `line 3: unknown key "typ" (want field and type)`,
	} {
		_, err := Load(filepath.Join("testdata", file), env(nil))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), file) {
			t.Errorf("%s: error %v, want it to name the file and %q", file, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: error shows the key", file)
		}
	}
}

func TestValidateNamesEveryBadKey(t *testing.T) {
	c := Default()
	c.BaseURL, c.FrontURL = "http://billing.example.com", "ftp://x"
	c.Concurrency, c.Progress, c.Parquet.Compression = 0, "loud", "lz9"
	c.Collections = map[string]string{"customers": "Customers"}
	c.DuckDB.LoadMemoryLimit, c.DuckDB.RowGroupSize, c.DuckDB.LoadThreads = "lots", 3000, 0
	c.Iceberg.Namespace, c.Parquet.URL = "a.b", "s3://key:secret@bucket/p"
	err := c.Validate()
	if req := (&Config{}).RequireService(); req == nil || !strings.Contains(req.Error(), "config key front_url: is required") {
		t.Errorf("RequireService: %v", req)
	}
	for _, key := range []string{"base_url", "front_url", "concurrency", "progress", "parquet.compression", "collections.customers",
		"duckdb.load_memory_limit", "duckdb.row_group_size", "duckdb.load_threads", "iceberg.namespace", "parquet.url"} {
		var ce *configkey.Error
		if !strings.Contains(err.Error(), "config key "+key+":") || !errors.As(err, &ce) {
			t.Errorf("Validate does not name %s: %v", key, err)
		}
	}
	if !strings.Contains(err.Error(), "not loopback") {
		t.Errorf("plain http to a remote host is not explained: %v", err)
	}
}

// The iceberg section: a catalog billsnap has not, a rest catalog without
// its URL or with credentials in it, a credential file that is not there.
func TestIcebergIsValidated(t *testing.T) {
	for _, tc := range []struct {
		o    lake.Iceberg
		want string
	}{
		{lake.Iceberg{Catalog: "hive", URI: "x", Namespace: "n"}, "config key iceberg.catalog: must be one of sql, rest, glue, none"},
		{lake.Iceberg{Catalog: "rest", Namespace: "n"}, "config key iceberg.uri: a rest catalog needs its http(s) URL"},
		{lake.Iceberg{Catalog: "rest", URI: "https://u:p@cat.example.com", Namespace: "n"}, "config key iceberg.uri: holds credentials"},
		{lake.Iceberg{Catalog: "sql", Namespace: "n"}, "config key iceberg.uri: a sql catalog needs its SQLite file"},
		{lake.Iceberg{Catalog: "glue", Namespace: "n", CredentialFile: "/nope/cred"}, "config key iceberg.credential_file: stat /nope/cred"},
		{lake.Iceberg{Catalog: "glue", Namespace: "n"}, "config key iceberg.warehouse: a glue catalog needs the AWS account ID"},
		// A namespace is printed into statements (lake ddl): a quote, a newline, a space or a
		// character other than a letter, digit or underscore is refused.
		{lake.Iceberg{Catalog: "sql", URI: "x", Namespace: `bill"; DROP SCHEMA x; --`}, `config key iceberg.namespace: must be one name of letters, digits and underscores`},
		{lake.Iceberg{Catalog: "sql", URI: "x", Namespace: "a\nb"}, `config key iceberg.namespace: must be one name`},
		{lake.Iceberg{Catalog: "sql", URI: "x", Namespace: "9lives"}, `config key iceberg.namespace: must be one name`},
		{lake.Iceberg{Catalog: "sql", URI: "x", Namespace: "données"}, `config key iceberg.namespace: must be one name`},
	} {
		c := Default()
		c.Iceberg = tc.o
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.want)
		}
	}
	c := Default()
	if err := c.Validate(); err != nil && strings.Contains(err.Error(), "iceberg") {
		t.Errorf("the default iceberg section: %v", err)
	}
}

func TestPlainHTTP(t *testing.T) {
	for u, ok := range map[string]bool{"http://127.0.0.1:8080": true, "http://localhost:1": true, "http://[::1]:9": true,
		"http://10.0.0.1": false, "https://10.0.0.1": true, "https://u:p@h.example.com": false, "https://h.example.com/?k=1": false} {
		if got := checkServiceURL(u, false) == ""; got != ok {
			t.Errorf("%s allowed %v, want %v", u, got, ok)
		}
	}
	if checkServiceURL("http://10.0.0.1", true) != "" {
		t.Error("allow_insecure_http does not allow plain http")
	}
}

func TestAPIKey(t *testing.T) {
	dir := t.TempDir()
	open := filepath.Join(dir, "open.key")
	os.WriteFile(open, []byte("s3cret\n"), 0o644)
	closed := filepath.Join(dir, "closed.key")
	os.WriteFile(closed, []byte("t0ken"), 0o600)
	var warned []string
	warn := func(s string) { warned = append(warned, s) }
	if k, err := APIKey(env(map[string]string{EnvAPIKey: " envkey "}), "", warn); k != "envkey" || err != nil {
		t.Errorf("env key: %q %v", k, err)
	}
	if k, err := APIKey(env(map[string]string{EnvAPIKey: "envkey"}), closed, warn); k != "t0ken" || err != nil || len(warned) != 0 {
		t.Errorf("file key: %q %v warned %v", k, err, warned)
	}
	if k, _ := APIKey(env(nil), open, warn); k != "s3cret" || len(warned) != 1 || !strings.Contains(warned[0], "0644") {
		t.Errorf("open file: %q, warned %v", k, warned)
	}
	if _, err := APIKey(env(nil), "", warn); err == nil || !strings.Contains(err.Error(), EnvAPIKey) {
		t.Errorf("no key: %v", err)
	}
	if _, err := APIKey(env(nil), filepath.Join(dir, "none"), warn); err == nil || !strings.HasPrefix(err.Error(), "--api-key-file: ") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := APIKey(env(map[string]string{EnvAPIKeyFile: filepath.Join(dir, "none")}), "", warn); err == nil || !strings.HasPrefix(err.Error(), EnvAPIKeyFile+": ") {
		t.Errorf("missing file named by %s: %v", EnvAPIKeyFile, err)
	}
}

func TestSchedulesAreValidated(t *testing.T) {
	c := Default()
	c.Schedules = []schedule.Schedule{
		{Name: "nightly", Spec: "CRON_TZ=Europe/Copenhagen 30 2 * * *", Job: "run", Period: "previous-month"},
		{Name: "hourly", Spec: "@hourly", Job: "export"},
		{Name: "often", Spec: "@every 5m", Job: "reconcile", Period: "current-month"},
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("good schedules: %v", err)
	}
	c.Schedules = []schedule.Schedule{
		{Name: "broken", Spec: "61 * * * *", Job: "run"},
		{Name: "broken", Spec: "0 * * *", Job: "backup"},
		{Spec: "@daily", Job: "export", Period: "previous-month"},
		{Name: "zone", Spec: "CRON_TZ=Mars/Olympus 0 1 * * *", Job: "run", Period: "last-week"},
	}
	err := c.Validate()
	for _, want := range []string{
		`config key schedules[broken].spec: "61 * * * *" is not a cron spec`,
		`config key schedules[broken].name: the name "broken" is used twice`,
		`config key schedules[broken].job: must be export, reconcile or run, not "backup"`,
		`config key schedules[2].name: every schedule needs a name`,
		`config key schedules[2].period: an export has no period`,
		`config key schedules[zone].spec`,
		`config key schedules[zone].period: must be previous-month, current-month or none, not "last-week"`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate does not say %q:\n%v", want, err)
		}
	}
}
