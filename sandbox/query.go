package sandbox

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
)

// queryPlans serves GET /v3/productplans/query: $expand names the nested
// lists to include, $filter selects plans by the SKU of a charge.
func (s *Sandbox) queryPlans(r *http.Request) reply {
	q := r.URL.Query()
	if err := onlyParams(q, 9, "$expand", "$filter"); err != nil {
		return fail(err)
	}
	charges, pricings, err := parseExpand(q.Get("$expand"))
	if err != nil {
		return fail(err)
	}
	sku, filtered, err := parsePlanFilter(q.Get("$filter"))
	if err != nil {
		return fail(err)
	}
	return s.listPage(r, s.lists["productplans"], func(rec any) ([]byte, bool) {
		p := rec.(*ProductPlan)
		if filtered && !sellsSKU(p, sku) {
			return nil, false
		}
		b, _ := json.Marshal(planView(p, charges, pricings))
		return s.vary.Record("product_plans", b, nil), true
	})
}

// queryCharges serves GET /v3/subscriptioncharges/query, optionally
// filtered to one subscription.
func (s *Sandbox) queryCharges(r *http.Request) reply {
	q := r.URL.Query()
	if err := onlyParams(q, 7, "$filter"); err != nil {
		return fail(err)
	}
	l := s.lists["subscriptioncharges"]
	if q.Get("$filter") == "" {
		return s.listPage(r, l, nil)
	}
	sub, err := parseChargeFilter(q.Get("$filter"))
	if err != nil {
		return fail(err)
	}
	return s.listPage(r, l, func(rec any) ([]byte, bool) {
		if c := rec.(*SubscriptionCharge); strings.EqualFold(c.SubscriptionID, sub) {
			return encode(c), true
		}
		return nil, false
	})
}

// onlyParams refuses OData options ($…) other than allowed.
func onlyParams(q map[string][]string, object int, allowed ...string) *apiError {
	for k := range q {
		if strings.HasPrefix(k, "$") && !contains(allowed, k) {
			return errorf(object, TypeOData, "The query option %s is not supported.", k)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// parseExpand reads $expand: comma-separated ProductPlanCharges and
// ProductPlanChargePricings.
func parseExpand(v string) (charges, pricings bool, err *apiError) {
	if v == "" {
		return false, false, nil
	}
	for name := range strings.SplitSeq(v, ",") {
		switch strings.TrimSpace(name) {
		case "ProductPlanCharges":
			charges = true
		case "ProductPlanChargePricings":
			pricings = true
		default:
			return false, false, errorf(9, TypeOData, "Could not find a property named '%s' on type 'ProductPlan' to expand.", strings.TrimSpace(name))
		}
	}
	return charges, pricings, nil
}

var (
	guidPattern  = `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`
	guidRE       = regexp.MustCompile(`^` + guidPattern + `$`)
	planFilterRE = regexp.MustCompile(`^\s*ProductPlanCharges/(all|any)\(\s*(\w+)\s*:\s*(\w+)/SKU\s+eq\s+'((?:[^']|'')*)'\s*\)\s*$`)
	subFilterRE  = regexp.MustCompile(`^\s*SubscriptionID\s+eq\s+guid'(` + guidPattern + `)'\s*$`)
)

// parsePlanFilter reads the spec's SKU filter,
// ProductPlanCharges/all(o: o/SKU eq '<sku>'). Like the service, it selects
// the plans that have a charge with that SKU (any is accepted as well).
func parsePlanFilter(v string) (sku string, filtered bool, err *apiError) {
	if v == "" {
		return "", false, nil
	}
	m := planFilterRE.FindStringSubmatch(v)
	if m == nil || m[2] != m[3] {
		return "", false, errorf(9, TypeOData, "The $filter %q is not supported; use ProductPlanCharges/all(o: o/SKU eq '<sku>').", v)
	}
	return strings.ReplaceAll(m[4], "''", "'"), true, nil
}

func sellsSKU(p *ProductPlan, sku string) bool {
	for _, c := range p.ProductPlanCharges {
		if c.SKU == sku {
			return true
		}
	}
	return false
}

// parseChargeFilter reads SubscriptionID eq guid'<id>'.
func parseChargeFilter(v string) (string, *apiError) {
	m := subFilterRE.FindStringSubmatch(v)
	if m == nil {
		return "", errorf(7, TypeOData, "The $filter %q is not supported; use SubscriptionID eq guid'<id>'.", v)
	}
	return m[1], nil
}
