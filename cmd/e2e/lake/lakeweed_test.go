//go:build lake && heavy && !race

// These tests run SeaweedFS's weed mini, a real S3 gateway and Iceberg
// REST catalog, which .ci/run builds (lake/laketest/weedtest).

package lake

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/lake"
	"github.com/billsnap/billsnap/lake/iceberg"
	"github.com/billsnap/billsnap/lake/laketest/weedtest"
	"github.com/billsnap/billsnap/lake/objects"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// TestIcebergTablesOnObjectStorage's body on a real S3 server, weed
// mini's plain bucket: the tree the answer key expects, time travel,
// retention, the spec reader.
func TestIcebergTablesOnSeaweedFS(t *testing.T) {
	t.Parallel()
	icebergTablesOnObjectStorage(t, weedtest.Start(t).URL("warehouse"))
}

// An export with iceberg.catalog rest, signed with SigV4 as S3 Tables
// are, to weed mini's REST catalog and its table bucket: check-config
// reaches the catalog; two exports and a third with retention.keep 1
// exit 0; the catalog's REST API then lists the 15 tables of the
// namespace, each at one Iceberg snapshot holding the newest billsnap
// snapshot, its files exactly that snapshot's manifest's, each in the
// bucket; read by the spec reader too, field IDs equal to the schema's.
// A catalog that does not answer is check-config's exit 2 naming
// iceberg.uri. The same catalog reached with an OAuth2 client credential
// is found the same. lake ddl prints Trino's and Spark's properties for
// it.
func TestARESTCatalogOnSeaweedFS(t *testing.T) {
	t.Parallel()
	s := weedtest.Start(t)
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 86, Customers: 20, Planted: 1}, "")
	url, dir := s.URL("billsnap"), t.TempDir()
	conf := filepath.Join(dir, "c.yml")
	o := lake.Iceberg{Catalog: "rest", URI: s.Iceberg, Warehouse: weedtest.TableBucket, Namespace: "billsnap", Auth: "sigv4"}
	write := func(keep int, uri string) {
		t.Helper()
		os.WriteFile(conf, fmt.Appendf(nil, "retention: {keep: %d}\niceberg: {catalog: rest, uri: %q, warehouse: %s, auth: sigv4}\n", keep, uri, o.Warehouse), 0o644)
	}
	checkConfig := func(want string) {
		t.Helper()
		code, stdout, stderr := e2etest.CLI(t, srv, "check-config", "--out", dir, "--config", conf, "--parquet-url", url)
		if code != job.ExitOK || !strings.Contains(stdout, want) {
			t.Errorf("check-config: exit %d, want a line with %q\n%s%s", code, want, stdout, stderr)
		}
		t.Log(stdout)
	}
	write(2, s.Iceberg)
	checkConfig("the rest catalog " + s.Iceberg + " answered (auth sigv4): namespace billsnap missing, created, 0 tables")
	for _, keep := range []int{2, 2, 1} {
		write(keep, s.Iceberg)
		if code, _, stderr := e2etest.CLI(t, srv, "export", "--out", dir, "--config", conf, "--progress", "none", "--parquet-url", url); code != job.ExitOK {
			t.Fatalf("export (keep %d): %d %s", keep, code, stderr)
		}
	}
	// Each table and its history table (docs/store.md, History tables).
	checkConfig(fmt.Sprintf("namespace billsnap present, %d tables", 2*len(srv.AnswerKey().Tables)))
	l, err := objects.Open(context.Background(), url, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	checkRESTTables(t, l, url, o, srv.AnswerKey())
	checkRESTDDL(t, srv, dir, conf, url, s)

	// The same catalog reached with an OAuth2 client credential, which
	// weed's catalog exchanges at its /v1/oauth/tokens as Polaris does.
	cred := filepath.Join(dir, "catalog.cred")
	os.WriteFile(cred, []byte("test-access:test-secret\n"), 0o600)
	os.WriteFile(conf, fmt.Appendf(nil, "iceberg: {catalog: rest, uri: %q, warehouse: %s, credential_file: %s}\n", s.Iceberg, o.Warehouse, cred), 0o644)
	checkConfig(fmt.Sprintf("answered (auth oauth2): namespace billsnap present, %d tables", 2*len(srv.AnswerKey().Tables)))

	write(2, "http://127.0.0.1:1")
	code, _, stderr := e2etest.CLI(t, srv, "check-config", "--out", dir, "--config", conf, "--parquet-url", url)
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); code != job.ExitUsage || len(lines) > 2 || !strings.Contains(stderr, "iceberg.uri http://127.0.0.1:1") {
		t.Errorf("a catalog that does not answer: exit %d\n%s", code, stderr)
	}
}

// checkRESTTables checks the tables the REST catalog of o lists after a
// keep 1 export of the sandbox whose answer key is key to the lake l at
// url: the key's tables, each at one snapshot holding the lake's latest,
// listing exactly its manifest's files, each in the table bucket (where
// the catalog locates the table) and there, read right by the spec
// reader, and by iceberg-go (by field ID) equal to the key.
func checkRESTTables(t *testing.T, l *objects.Lake, url string, o lake.Iceberg, key sandbox.AnswerKey) {
	t.Helper()
	ctx := context.Background()
	ms, err := l.Manifests(ctx)
	latest, _ := l.Latest(ctx)
	if err != nil || len(ms) != 1 || ms[0].Snapshot != latest {
		t.Fatalf("after retention 1: %d manifests, latest %q, %v", len(ms), latest, err)
	}
	want := map[string]map[string]bool{}
	for _, f := range ms[0].Files {
		if want[f.Table] == nil {
			want[f.Table] = map[string]bool{}
		}
		want[f.Table][lake.FileURL(lake.Root(url), f.Key)] = true
	}
	c, err := iceberg.Open(ctx, o, url, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tables, err := c.(*iceberg.Catalog).Tables(ctx)
	if err != nil || len(tables) != 2*len(key.Tables) {
		t.Fatalf("the REST catalog lists %d tables (%v), want %d and their history tables", len(tables), err, len(key.Tables))
	}
	for _, tbl := range tables {
		name := tbl.Identifier()[1]
		if k := len(tbl.Metadata().Snapshots()); k != 1 || iceberg.Held(tbl.CurrentSnapshot()) != latest {
			t.Errorf("%s: %d Iceberg snapshots, current holds %q, want 1 holding %s", name, k, iceberg.Held(tbl.CurrentSnapshot()), latest)
		}
		got := dataFiles(t, tbl)
		if !isHistory(tbl) && !equalSets(got, want[name]) {
			t.Errorf("%s lists %v, the manifest %v", name, got, want[name])
		}
		for f := range got {
			if !strings.HasPrefix(f, "s3://"+o.Warehouse+"/") {
				t.Errorf("%s: %s is not in the table bucket %s, where the catalog locates the table", name, f, o.Warehouse)
			}
		}
		checkBySpec(t, l, url, tbl.MetadataLocation())
		if !isHistory(tbl) {
			checkScan(t, tbl.Scan(), name+" through the REST catalog", key.Tables[name])
		}
	}
}

// dataFiles are the data files tbl's current snapshot lists.
func dataFiles(t *testing.T, tbl *table.Table) map[string]bool {
	t.Helper()
	tasks, err := tbl.Scan().PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, task := range tasks {
		got[task.File.FilePath()] = true
	}
	return got
}

func equalSets(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// checkRESTDDL checks that lake ddl prints, for Trino and Spark, the
// properties that reach weed's catalog as billsnap did: its URI, its
// warehouse, SigV4 for s3tables, and its S3 endpoint.
func checkRESTDDL(t *testing.T, srv *sandbox.Server, dir, conf, url string, s *weedtest.Server) {
	t.Helper()
	for engine, want := range map[string][]string{
		"trino": {"iceberg.rest-catalog.uri=" + s.Iceberg + "\n", "iceberg.rest-catalog.warehouse=" + weedtest.TableBucket + "\n",
			"iceberg.rest-catalog.security=SIGV4\n", "iceberg.rest-catalog.signing-name=s3tables\n", "s3.endpoint=" + s.S3 + "\n"},
		"spark": {"spark.sql.catalog.billsnap.uri=" + s.Iceberg + "\n", "spark.sql.catalog.billsnap.rest.sigv4-enabled=true\n",
			"spark.sql.catalog.billsnap.rest.signing-name=s3tables\n", "spark.sql.catalog.billsnap.s3.endpoint=" + s.S3 + "\n"},
	} {
		code, stdout, stderr := e2etest.CLI(t, srv, "lake", "ddl", "--engine", engine, "--out", dir, "--config", conf, "--parquet-url", url)
		for _, w := range want {
			if code != job.ExitOK || !strings.Contains(stdout, w) {
				t.Errorf("lake ddl --engine %s: exit %d, no %q\n%s%s", engine, code, w, stdout, stderr)
			}
		}
	}
}
