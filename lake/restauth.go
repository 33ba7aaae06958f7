package lake

import (
	"cmp"
	"errors"
	"net/url"
	"os"
	"strings"

	"github.com/billsnap/billsnap/configkey"
)

// AuthKinds are the values of iceberg.auth.
var AuthKinds = []string{"none", "sigv4", "oauth2"}

// auth is o's iceberg.auth with its default.
func (o Iceberg) auth() string {
	switch {
	case o.Catalog == "glue":
		return "sigv4"
	case o.Auth != "":
		return o.Auth
	case o.CredentialFile != "":
		return "oauth2"
	}
	return "none"
}

// validateAuth returns the problems of o's authentication keys.
func (o Iceberg) validateAuth() []error {
	var errs []error
	bad := func(key, format string, args ...any) { errs = append(errs, configkey.Errorf(key, format, args...)) }
	switch o.Auth {
	case "", "none", "sigv4", "oauth2":
	default:
		bad("auth", "must be one of %s, not %q", strings.Join(AuthKinds, ", "), o.Auth)
		return errs
	}
	if o.Auth != "" && o.Catalog != "rest" {
		bad("auth", "is a rest catalog's, not %s's", o.Catalog)
	}
	switch o.auth() {
	case "oauth2":
		if o.CredentialFile == "" {
			bad("credential_file", "oauth2 needs the file holding the client credential ID:SECRET")
		}
	case "sigv4", "none":
		if o.CredentialFile != "" && o.Catalog == "rest" {
			bad("credential_file", "is oauth2's client credential, and iceberg.auth is %s", o.auth())
		}
	}
	if o.OAuth2URI != "" {
		if u, err := url.Parse(o.OAuth2URI); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			bad("oauth2_uri", "must be the token endpoint's http(s) URL without credentials")
		}
	}
	return errs
}

// RESTProperties are the properties of iceberg-go's rest catalog that
// authenticate o's requests, for a lake whose region is region (""
// when its URL names none). A glue or sigv4 catalog with no region
// anywhere is an error.
func (o Iceberg) RESTProperties(region string) (map[string]string, error) {
	props := map[string]string{}
	switch o.auth() {
	case "sigv4":
		region = cmp.Or(o.SigningRegion, region, os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION"))
		if region == "" {
			return nil, errors.New(o.Catalog + ": no AWS region to sign with (iceberg.signing_region, the region of parquet.url, or AWS_REGION)")
		}
		name := cmp.Or(o.SigningName, "s3tables")
		if o.Catalog == "glue" {
			name = "glue"
		}
		props["rest.sigv4-enabled"], props["rest.signing-region"], props["rest.signing-name"] = "true", region, name
	case "oauth2":
		b, err := os.ReadFile(o.CredentialFile)
		if err != nil {
			return nil, err
		}
		props["credential"] = strings.TrimSpace(string(b))
		if o.OAuth2URI != "" {
			props["oauth2-server-uri"] = o.OAuth2URI
		}
		if o.Scope != "" {
			props["scope"] = o.Scope
		}
	}
	return props, nil
}

// EngineProperties are the properties that authenticate engine's (trino
// or spark) requests to a rest catalog as o's are, in order, for a lake
// whose region is region; the OAuth2 client credential is named, never
// printed. None for none, or for a catalog not rest.
func (o Iceberg) EngineProperties(engine, region string) [][2]string {
	if o.Catalog != "rest" {
		return nil
	}
	region = cmp.Or(o.SigningRegion, region, "<region>")
	name := cmp.Or(o.SigningName, "s3tables")
	cred := "<ID:SECRET, the content of " + cmp.Or(o.CredentialFile, "iceberg.credential_file") + ">"
	var out [][2]string
	add := func(k, v string) {
		if v != "" {
			out = append(out, [2]string{k, v})
		}
	}
	switch {
	case o.auth() == "sigv4" && engine == "trino":
		add("iceberg.rest-catalog.security", "SIGV4")
		add("iceberg.rest-catalog.signing-name", name)
		add("s3.region", region)
	case o.auth() == "sigv4":
		add("rest.sigv4-enabled", "true")
		add("rest.signing-name", name)
		add("rest.signing-region", region)
	case o.auth() == "oauth2" && engine == "trino":
		add("iceberg.rest-catalog.security", "OAUTH2")
		add("iceberg.rest-catalog.oauth2.credential", cred)
		add("iceberg.rest-catalog.oauth2.server-uri", o.OAuth2URI)
		add("iceberg.rest-catalog.oauth2.scope", o.Scope)
	case o.auth() == "oauth2":
		add("credential", cred)
		add("oauth2-server-uri", o.OAuth2URI)
		add("scope", o.Scope)
	}
	return out
}
