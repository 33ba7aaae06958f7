package extract

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/billsnap/billsnap/config"
)

// Collection is one paged list of the service.
type Collection struct {
	Table  string // the snapshot table its records go to: customers
	Path   string // path (and query) of its first page, relative to the origin below
	Front  bool   // on front_url (x-version: nxt); otherwise on base_url
	Object int    // object code of its errors (spec §7)
}

// catalogue is every collection of docs/fields.md, in its order. Product plans
// come from the /v3 query with both nested lists expanded.
var catalogue = []Collection{
	{"customers", "/Customers/", true, 2},
	{"contacts", "/Contacts/", true, 4},
	{"payment_methods", "/PaymentMethods/", true, 3},
	{"discounts", "/Discounts/", true, 5},
	{"subscriptions", "/Subscriptions/", true, 6},
	{"subscription_charges", "/SubscriptionCharges/", true, 7},
	{"product_plans", "/v3/productplans/query?$expand=ProductPlanCharges,ProductPlanChargePricings", false, 9},
	{"invoices", "/Invoices/", true, 8},
	{"transactions", "/Transactions/", true, 1},
	{"units_of_measure", "/UnitsOfMeasure/", true, 11},
	{"business_units", "/BusinessUnits/", true, 12},
	{"tax_rules", "/TaxRules/", true, 13},
}

// Catalog returns the collections with the paths of cfg's collections key
// applied. An unknown name is a *config.Error naming it.
func Catalog(cfg config.Config) ([]Collection, error) {
	out := slices.Clone(catalogue)
	for name, path := range cfg.Collections {
		i := slices.IndexFunc(out, func(c Collection) bool { return c.Table == name })
		if i < 0 {
			return nil, &config.Error{Key: "collections." + name, Msg: fmt.Sprintf("unknown collection; known: %s", strings.Join(CollectionNames(), ", "))}
		}
		out[i].Path = path
	}
	return out, nil
}

// CollectionNames lists the catalogue's table names.
func CollectionNames() []string {
	names := make([]string, len(catalogue))
	for i, c := range catalogue {
		names[i] = c.Table
	}
	return names
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
