package ddl

import (
	"bytes"
	"testing"

	"github.com/billsnap/billsnap/internal/golden"
	"github.com/billsnap/billsnap/lake"
)

// A rest catalog signed with SigV4 (S3 Tables, SeaweedFS) or reached
// with an OAuth2 client credential (Polaris, Nessie, Lakekeeper): Trino's
// and Spark's properties for it, the credential named and never printed
// (golden files, checked by eye against the engines' documentation).
func TestRESTCatalogAuthentication(t *testing.T) {
	sigv4, oauth2 := lake.DefaultIceberg(), lake.DefaultIceberg()
	sigv4.Catalog, sigv4.URI, sigv4.Warehouse, sigv4.Auth = "rest", "http://127.0.0.1:8181", "warehouse", "sigv4"
	oauth2.Catalog, oauth2.URI, oauth2.Warehouse, oauth2.CredentialFile = "rest", "https://polaris.example.com/api/catalog", "analytics", "/etc/billsnap/catalog.cred"
	oauth2.Scope = "PRINCIPAL_ROLE:ALL"
	for _, engine := range []string{"trino", "spark"} {
		for name, o := range map[string]lake.Iceberg{"sigv4": sigv4, "oauth2": oauth2} {
			var b bytes.Buffer
			if err := Write(&b, engine, lakeOf(o)); err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b.Bytes(), []byte("secret")) {
				t.Errorf("%s %s prints a secret", engine, name)
			}
			golden.Check(t, engine+"-rest-"+name+".sql", b.Bytes())
		}
	}
}
