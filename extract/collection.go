package extract

import (
	"fmt"
	"net/url"
	"strings"
)

// Collection is one paged list of the service, as the walker needs it
// (the catalogue of them is package catalog: catalog.Collections).
type Collection struct {
	Table  string // the snapshot table its records go to: customers
	Path   string // path (and query) of its first page, relative to the origin below
	Front  bool   // on front_url (x-version: nxt); otherwise on base_url
	Object int    // object code of its errors (spec §7)
}

// FirstPage is the URL of the collection's first page: ?page=1 on a front
// list (spec §4.6); the query as configured on base_url.
func (c Collection) FirstPage(baseURL, frontURL string) string {
	if !c.Front {
		return strings.TrimRight(baseURL, "/") + c.Path
	}
	sep := "?"
	if strings.Contains(c.Path, "?") {
		sep = "&"
	}
	return strings.TrimRight(frontURL, "/") + c.Path + sep + "page=1"
}

// origin is scheme://host:port of a URL, with the default port made explicit,
// so that two URLs of one origin compare equal.
func origin(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	if u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("not an absolute URL")
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port, nil
}
