package lake

import (
	"context"
	"fmt"
	"net/url"
)

// ProbeCatalog says what check-config found of the remote catalog of o
// (rest or glue) for the lake at lakeURL, opened with open: the catalog
// answered, whether its namespace was there (opening creates it when
// missing, as an export would) and how many tables it holds. An error
// names iceberg.uri and the catalog's URL, without its query or
// credentials. A sql catalog, a file in the store, and none say nothing.
func ProbeCatalog(ctx context.Context, open CatalogOpener, o Iceberg, lakeURL, out string) (string, error) {
	if o.Catalog != "rest" && o.Catalog != "glue" {
		return "", nil
	}
	where := redacted(o.URI)
	if where == "" {
		where = "glue's endpoint"
	}
	c, err := open(ctx, o, lakeURL, out)
	if err != nil {
		return "", fmt.Errorf("iceberg.uri %s: %w", where, err)
	}
	defer c.Close()
	tables, err := c.Metadata(ctx)
	if err != nil {
		return "", fmt.Errorf("iceberg.uri %s: %w", where, err)
	}
	ns := "present"
	if cr, ok := c.(interface{ CreatedNamespace() bool }); ok && cr.CreatedNamespace() {
		ns = "missing, created"
	}
	return fmt.Sprintf("the %s catalog %s answered (auth %s): namespace %s %s, %d tables", o.Catalog, where, o.auth(), o.Namespace, ns, len(tables)), nil
}

// redacted is raw without its user information, query and fragment.
func redacted(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return ""
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
