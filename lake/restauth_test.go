package lake

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A rest catalog is signed with SigV4 (s3tables by default), given an
// OAuth2 client credential, or neither; glue is always signed as glue;
// keys that contradict each other are named.
func TestRESTAuthentication(t *testing.T) {
	cred := filepath.Join(t.TempDir(), "cred")
	os.WriteFile(cred, []byte("id:secret\n"), 0o600)
	rest := Iceberg{Catalog: "rest", URI: "http://cat.example.com", Namespace: "n"}
	with := func(f func(*Iceberg)) Iceberg { o := rest; f(&o); return o }
	for _, c := range []struct {
		o    Iceberg
		want map[string]string
	}{
		{rest, map[string]string{}},
		{with(func(o *Iceberg) { o.Auth = "sigv4" }), map[string]string{"rest.sigv4-enabled": "true", "rest.signing-region": "eu-west-1", "rest.signing-name": "s3tables"}},
		{with(func(o *Iceberg) { o.Auth, o.SigningName, o.SigningRegion = "sigv4", "execute-api", "us-east-2" }), map[string]string{"rest.sigv4-enabled": "true", "rest.signing-region": "us-east-2", "rest.signing-name": "execute-api"}},
		{with(func(o *Iceberg) { o.CredentialFile = cred }), map[string]string{"credential": "id:secret"}},
		{with(func(o *Iceberg) {
			o.Auth, o.CredentialFile, o.OAuth2URI, o.Scope = "oauth2", cred, "https://idp.example.com/token", "PRINCIPAL_ROLE:ALL"
		}),
			map[string]string{"credential": "id:secret", "oauth2-server-uri": "https://idp.example.com/token", "scope": "PRINCIPAL_ROLE:ALL"}},
		{Iceberg{Catalog: "glue", Warehouse: "1", Namespace: "n"}, map[string]string{"rest.sigv4-enabled": "true", "rest.signing-region": "eu-west-1", "rest.signing-name": "glue"}},
	} {
		if err := c.o.Validate(); err != nil {
			t.Errorf("%+v: %v", c.o, err)
		}
		got, err := c.o.RESTProperties("eu-west-1")
		if err != nil || !maps.Equal(got, c.want) {
			t.Errorf("%+v: %v %v, want %v", c.o, got, err, c.want)
		}
	}
	for o, want := range map[*Iceberg]string{
		new(with(func(o *Iceberg) { o.Auth = "basic" })):                         "key auth: must be one of none, sigv4, oauth2",
		new(with(func(o *Iceberg) { o.Auth = "oauth2" })):                        "key credential_file: oauth2 needs",
		new(with(func(o *Iceberg) { o.Auth, o.CredentialFile = "sigv4", cred })): "key credential_file: is oauth2's client credential, and iceberg.auth is sigv4",
		{Catalog: "sql", URI: "x", Namespace: "n", Auth: "sigv4"}:                "key auth: is a rest catalog's, not sql's",
		new(with(func(o *Iceberg) { o.OAuth2URI = "https://a:b@idp" })):          "key oauth2_uri: must be",
	} {
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", *o, err, want)
		}
	}
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	if _, err := with(func(o *Iceberg) { o.Auth = "sigv4" }).RESTProperties(""); err == nil || !strings.Contains(err.Error(), "no AWS region") {
		t.Errorf("sigv4 with no region: %v", err)
	}
}
