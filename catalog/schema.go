package catalog

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/billsnap/billsnap/configkey"
)

// Kind is a column's type, the same in Parquet and in DuckDB.
type Kind int

const (
	String    Kind = iota // JSON string; Parquet UTF8; VARCHAR
	Timestamp             // ISO 8601 string; Parquet TIMESTAMP(MICROS, UTC); TIMESTAMPTZ
	Money                 // number with at most 2 decimals; DECIMAL(18,2)
	Quantity              // number with at most 4 decimals; DECIMAL(18,4)
	Int32                 // whole number; INTEGER
	Int64                 // whole number; BIGINT
	Bool                  // true or false; BOOLEAN
	Float                 // number; DOUBLE
)

// kindNames are the kinds' names in the configuration and in reports.
var kindNames = []string{String: "string", Timestamp: "timestamp", Money: "money", Quantity: "quantity",
	Int32: "integer", Int64: "bigint", Bool: "boolean", Float: "number"}

// String is the kind's name: string, timestamp, money, quantity, integer,
// bigint, boolean or number.
func (k Kind) String() string { return kindNames[k] }

// KindNamed is the kind called name (see Kind.String).
func KindNamed(name string) (Kind, bool) {
	for k, n := range kindNames {
		if n == name {
			return Kind(k), true
		}
	}
	return 0, false
}

// Column is a typed column filled from one field of the record.
//
// A contract column holds a field the service's interface defines (the
// SubscriptionCharge, ProductPlan and ProductPlanCharge fields): a value of
// another type breaks the contract and stops the export. Every other column
// holds a field billsnap assumes (docs/fields.md): a value of another JSON
// type is coerced when nothing is lost, and otherwise left NULL in its
// column (the record's _raw keeps it), and counted either way.
//
// Description says what the column holds, for analysts (the read model's
// columns relation, query --columns): in plain English, with its unit or
// currency where that matters. Codes, for a coded column, are the values
// it is known to hold, each with its label (the codes relation, and the
// <column>_label beside it in the read model's views); docs/fields.md
// lists them (CodesDoc).
type Column struct {
	Name        string // snake_case column name
	Field       string // the record's JSON field
	Kind        Kind
	Contract    bool
	Description string
	Codes       []Code
}

// Code is one value of a coded column, as the column holds it (written
// as text: "7"), and what it means.
type Code struct{ Code, Label string }

// Table is a table of the snapshot. Every table has, in this order:
// snapshot_id (DuckDB only: in Parquet it is the partition directory), id,
// the parent's ID for a child table, its typed columns, and _raw (the
// record as sent). A table is filled either from a list of the service
// (List), or, as a child table, from a nested list of its parent's records
// (children).
type Table struct {
	Name         string
	ParentColumn string // for a child table: the column holding its parent's ID
	List         *List  // the service's list it is filled from; nil for a child table
	Columns      []Column
	// FieldIDs are the columns' field IDs, by name (snapshot_id has
	// none): the store's catalogue gives each column of a table an ID
	// that it keeps across snapshots (fieldids.go), and every Parquet
	// file of a snapshot carries them. Nil until the store assigns them.
	FieldIDs map[string]int
}

// List is a paged list of the service (a collection).
type List struct {
	Path   string // path (and query) of its first page, relative to its origin
	Front  bool   // on front_url (x-version: nxt); otherwise on base_url
	Object int    // object code of its errors (spec §7)
}

// front and v3 are the lists on front_url and on base_url's /v3.
func front(path string, object int) *List { return &List{Path: path, Front: true, Object: object} }
func v3(path string, object int) *List    { return &List{Path: path, Object: object} }

// col is an assumed column, described for analysts (Description).
func col(name, field string, k Kind, description string) Column {
	return Column{Name: name, Field: field, Kind: k, Description: description}
}

// spec is a contract column: its field and type are the spec's.
func spec(name, field string, k Kind, description string) Column {
	return Column{Name: name, Field: field, Kind: k, Contract: true, Description: description}
}

// coded is c with its codes: every value it is known to hold, labelled.
func (c Column) coded(codes ...Code) Column {
	c.Codes = codes
	return c
}

// tables are every table of the snapshot, named for analysts and stable:
// the one catalogue of what billsnap takes from the service — each list's
// path and object code, each table's typed columns (the fields of
// docs/fields.md; every other field is kept in _raw), and the child tables
// (children). Product plans come from the /v3 query with both nested lists
// expanded.
var tables = []Table{
	{Name: "customers", List: front("/Customers/", 2), Columns: []Column{
		col("full_name", "FullName", String, "the customer's full name"),
		col("company_name", "CompanyName", String, "the customer's company name"),
		col("currency_code", "CurrencyCode", String, "the customer's currency, an ISO 4217 code of 3 letters (EUR)"),
		col("email", "Email", String, "the customer's e-mail address"),
		col("created", "Created", Timestamp, "when the customer was created in the service (UTC)")}},
	{Name: "contacts", List: front("/Contacts/", 4), Columns: []Column{
		col("customer_id", "CustomerID", String, "the customer the contact belongs to (customers.id)"),
		col("full_name", "FullName", String, "the contact's full name"),
		col("email", "Email", String, "the contact's e-mail address")}},
	{Name: "payment_methods", List: front("/PaymentMethods/", 3), Columns: []Column{
		col("customer_id", "CustomerID", String, "the customer who pays with it (customers.id)"),
		col("type", "Type", String, "the kind of payment method, as the service names it (the spec lists none; the sandbox sends Card, SEPA and Invoice)"),
		col("active", "Active", Bool, "whether the customer can pay with it now"),
		col("expiry_date", "ExpiryDate", Timestamp, "when the payment method expires (UTC)")}},
	{Name: "discounts", List: front("/Discounts/", 5), Columns: []Column{
		col("subscription_id", "SubscriptionID", String, "the subscription discounted (subscriptions.id)"),
		col("percentage", "Percentage", Float, "the discount in percent of the price, 10 for 10% off (the sandbox's form; the spec shows none)"),
		col("start_date", "StartDate", Timestamp, "when the discount starts (UTC)"),
		col("end_date", "EndDate", Timestamp, "when the discount ends (UTC)")}},
	{Name: "subscriptions", List: front("/Subscriptions/", 6), Columns: []Column{
		col("customer_id", "CustomerID", String, "the customer who holds the subscription (customers.id)"),
		col("product_plan_id", "ProductPlanID", String, "the product plan it is based on (product_plans.id)"),
		col("currency_code", "CurrencyCode", String, "the subscription's currency, an ISO 4217 code of 3 letters"),
		col("state", "State", String, "the subscription's state: NotActivated, Activated, Paused or Cancelled (codes)").coded(
			Code{"NotActivated", "not activated"}, Code{"Activated", "activated"}, Code{"Paused", "paused"}, Code{"Cancelled", "cancelled"}),
		col("start_date", "StartDate", Timestamp, "when the subscription starts (UTC)")}},
	{Name: "subscription_charges", List: front("/SubscriptionCharges/", 7), Columns: []Column{
		spec("subscription_id", "SubscriptionID", String, "the subscription that holds the charge (subscriptions.id)"),
		spec("product_plan_charge_id", "ProductPlanChargeID", String, "the product the charge is for (product_plan_charges.id)"),
		spec("reference_id", "ReferenceID", String, "the stable reference to this product on this subscription: the charges of every period share it, and setting a quantity by it sets the active charge's"),
		spec("amount", "Amount", Quantity, "the quantity of the product to charge, not money (0, the usual start, keeps it off the invoice)"),
		spec("next_charge_date", "NextChargeDate", Timestamp, "when the charge is next charged (UTC): an active charge (status 1) is charged then"),
		spec("state_code", "StateCode", Int32, "a state whose meaning the spec does not give; the only value seen is 1 (codes)").coded(
			Code{"1", "the only value seen; the spec gives no meaning"}),
		spec("status", "Status", Int32, "1 active: waits for its NextChargeDate; 7 charged: history, a new active charge is made for the next period (codes)").coded(
			Code{"1", "active: waits for its NextChargeDate"}, Code{"7", "charged: history"})}},
	{Name: "invoices", List: front("/Invoices/", 8), Columns: []Column{
		col("invoice_number", "InvoiceNumber", String, "the invoice's number, as people read it"),
		col("customer_id", "CustomerID", String, "the customer invoiced (customers.id)"),
		col("subscription_id", "SubscriptionID", String, "the subscription invoiced (subscriptions.id)"),
		col("invoice_date", "InvoiceDate", Timestamp, "the invoice's date (UTC)"),
		col("due_date", "DueDate", Timestamp, "when payment is due (UTC)"),
		col("currency_code", "CurrencyCode", String, "the invoice's currency, an ISO 4217 code of 3 letters: its total and its lines' prices and amounts are in it"),
		col("total_amount", "TotalAmount", Money, "the invoice's total, in its currency_code"),
		col("payment_date", "PaymentDate", Timestamp, "when the invoice was marked paid (UTC); NULL until it is paid")}},
	{Name: "invoice_lines", ParentColumn: "invoice_id", Columns: []Column{
		col("subscription_charge_id", "SubscriptionChargeID", String, "the subscription charge the line bills (subscription_charges.id)"),
		col("product_plan_charge_id", "ProductPlanChargeID", String, "the product billed (product_plan_charges.id)"),
		col("quantity", "Quantity", Quantity, "the quantity billed: the charge's Amount"),
		col("unit_price", "UnitPrice", Money, "the price of one unit, in the invoice's currency (invoices.currency_code)"),
		col("amount", "Amount", Money, "the line's amount, quantity × unit_price, in the invoice's currency"),
		col("text", "Text", String, "the line's text on the invoice")}},
	{Name: "product_plans", List: v3("/v3/productplans/query?$expand=ProductPlanCharges,ProductPlanChargePricings", 9), Columns: []Column{
		spec("full_name", "FullName", String, "the plan's name"),
		spec("currency_code", "CurrencyCode", String, "the plan's currency, 3 letters"),
		spec("active_currencies", "ActiveCurrencies", String, "the plan's active currency code or codes, in one string as the service sends them")}},
	{Name: "product_plan_charges", ParentColumn: "product_plan_id", Columns: []Column{
		spec("full_name", "FullName", String, "the product's name"),
		spec("invoice_text", "InvoiceText", String, "the text printed on the invoice"),
		spec("default_amount", "DefaultAmount", Int64, "the default quantity: 1 sells the product as one unit by default, 0 none"),
		spec("sku", "SKU", String, "the product's stock keeping unit")}},
	{Name: "product_plan_charge_pricings", ParentColumn: "product_plan_id", Columns: []Column{
		col("product_plan_charge_id", "ProductPlanChargeID", String, "the product priced (product_plan_charges.id)"),
		col("currency_code", "CurrencyCode", String, "the currency of the price, an ISO 4217 code of 3 letters"),
		col("unit_price", "UnitPrice", Money, "the price of one unit of the product, in currency_code")}},
	{Name: "transactions", List: front("/Transactions/", 1), Columns: []Column{
		col("customer_id", "CustomerID", String, "the customer who paid or was refunded (customers.id)"),
		col("invoice_id", "InvoiceID", String, "the invoice paid or refunded (invoices.id); NULL when it names none"),
		col("type", "Type", String, "Payment or Refund (codes)").coded(Code{"Payment", "payment"}, Code{"Refund", "refund"}),
		col("status", "Status", String, "Settled, Pending or Failed (codes)").coded(
			Code{"Settled", "settled"}, Code{"Pending", "pending"}, Code{"Failed", "failed"}),
		col("amount", "Amount", Money, "the money paid or refunded, in currency_code"),
		col("currency_code", "CurrencyCode", String, "the transaction's currency, an ISO 4217 code of 3 letters"),
		col("transaction_date", "TransactionDate", Timestamp, "when the transaction was made (UTC)")}},
	{Name: "units_of_measure", List: front("/UnitsOfMeasure/", 11), Columns: []Column{col("name", "Name", String, "the unit's name")}},
	{Name: "business_units", List: front("/BusinessUnits/", 12), Columns: []Column{
		col("name", "Name", String, "the business unit's name"),
		col("currency_code", "CurrencyCode", String, "the business unit's currency, an ISO 4217 code of 3 letters")}},
	{Name: "tax_rules", List: front("/TaxRules/", 13), Columns: []Column{
		col("name", "Name", String, "the rule's name"),
		col("rate", "Rate", Float, "the tax rate as a fraction, 0.2 for 20% (the sandbox's form; the spec shows none)")}},
}

// Child is a nested list of a collection's records that becomes a table.
type Child struct {
	Field string // the array field of the parent record
	Table string
	// KeyColumns make the id of an item that has no ID of its own: their
	// values joined by "/". Empty means the item's ID; parentID/position
	// when it has none, or a key column has no value.
	KeyColumns []string
	// Contract: the spec defines the list as an array, so anything else
	// breaks the contract. ItemContract: the spec defines its items too,
	// so an item that is not an object, or whose ID is not a string,
	// breaks it.
	Contract, ItemContract bool
}

// children are the nested lists, by parent table.
var children = map[string][]Child{
	"invoices": {{Field: "InvoiceLines", Table: "invoice_lines"}},
	"product_plans": {
		{Field: "ProductPlanCharges", Table: "product_plan_charges", Contract: true, ItemContract: true},
		{Field: "ProductPlanChargePricings", Table: "product_plan_charge_pricings", Contract: true, KeyColumns: []string{"product_plan_charge_id", "currency_code"}},
	},
}

// Children are the nested lists of table's records that fill child
// tables, in the catalogue's order.
func Children(table string) []Child { return slices.Clone(children[table]) }

// CollectionOf is the collection whose walk fills table: the table
// itself, or the parent whose records hold its nested list.
func CollectionOf(table string) string {
	for parent, kids := range children {
		for _, ch := range kids {
			if ch.Table == table {
				return parent
			}
		}
	}
	return table
}

// TableNamed returns the table called name.
func TableNamed(name string) (Table, error) {
	if t, ok := Find(tables, name); ok {
		return t, nil
	}
	return Table{}, fmt.Errorf("no table %q", name)
}

// Find is the table called name among tables.
func Find(tables []Table, name string) (Table, bool) {
	i := slices.IndexFunc(tables, func(t Table) bool { return t.Name == name })
	if i < 0 {
		return Table{}, false
	}
	return tables[i], true
}

// TablesOf names the tables a walk of collection fills: its own, then
// those of its nested lists.
func TablesOf(collection string) []string {
	out := []string{collection}
	for _, ch := range children[collection] {
		out = append(out, ch.Table)
	}
	return out
}

// ColumnNames are the table's columns in Parquet order (without snapshot_id).
func (t Table) ColumnNames() []string {
	names := []string{"id"}
	if t.ParentColumn != "" {
		names = append(names, t.ParentColumn)
	}
	for _, c := range t.Columns {
		names = append(names, c.Name)
	}
	return append(names, "_raw")
}

var duckTypes = map[Kind]string{String: "VARCHAR", Timestamp: "TIMESTAMPTZ", Money: "DECIMAL(18,2)", Quantity: "DECIMAL(18,4)",
	Int32: "INTEGER", Int64: "BIGINT", Bool: "BOOLEAN", Float: "DOUBLE"}

const (
	pqOptional = ", repetitiontype=OPTIONAL"
	pqUTF8     = "type=BYTE_ARRAY, convertedtype=UTF8"
)

var parquetTypes = map[Kind]string{
	String:    pqUTF8,
	Timestamp: "type=INT64, logicaltype=TIMESTAMP, logicaltype.isadjustedtoutc=true, logicaltype.unit=MICROS",
	Money:     "type=INT64, convertedtype=DECIMAL, scale=2, precision=18, logicaltype=DECIMAL, logicaltype.precision=18, logicaltype.scale=2",
	Quantity:  "type=INT64, convertedtype=DECIMAL, scale=4, precision=18, logicaltype=DECIMAL, logicaltype.precision=18, logicaltype.scale=4",
	Int32:     "type=INT32",
	Int64:     "type=INT64",
	Bool:      "type=BOOLEAN",
	Float:     "type=DOUBLE",
}

// ParquetSchema is the table's schema in parquet-go's metadata form,
// with each column's field ID when the table has them (parquet-go
// writes field_id 0 for a column without one).
func (t Table) ParquetSchema() []string {
	md := []string{t.parquetColumn("id", pqUTF8+", repetitiontype=REQUIRED")}
	if t.ParentColumn != "" {
		md = append(md, t.parquetColumn(t.ParentColumn, pqUTF8+", repetitiontype=REQUIRED"))
	}
	for _, c := range t.Columns {
		md = append(md, t.parquetColumn(c.Name, parquetTypes[c.Kind]+pqOptional))
	}
	return append(md, t.parquetColumn("_raw", pqUTF8+", repetitiontype=REQUIRED"))
}

// parquetColumn is column name's metadata: its type and repetition,
// then its field ID.
func (t Table) parquetColumn(name, typ string) string {
	md := "name=" + name + ", " + typ
	if id := t.FieldIDs[name]; id > 0 {
		md += ", fieldid=" + strconv.Itoa(id)
	}
	return md
}

// CreateSQL is the definition of the table's latest_ table in DuckDB, as
// table name (which may be qualified: model.latest_invoices): snapshot_id
// and every column of the Parquet but _raw, which the read model reads
// from the Parquet only (a copy in DuckDB would double the store's size
// and a fifth of an export's CPU). The columns named in uncompressed
// are stored uncompressed (USING COMPRESSION uncompressed): DuckDB then
// does not analyse them for a compression as it writes them. Neither their
// type nor what they hold changes.
func (t Table) CreateSQL(name string, uncompressed ...string) string {
	def := func(col, typ string) string {
		if slices.Contains(uncompressed, col) {
			typ += " USING COMPRESSION uncompressed"
		}
		return ",\n  " + col + " " + typ
	}
	s := "CREATE TABLE IF NOT EXISTS " + name + " (\n  snapshot_id VARCHAR NOT NULL" + def("id", "VARCHAR NOT NULL")
	if t.ParentColumn != "" {
		s += def(t.ParentColumn, "VARCHAR NOT NULL")
	}
	for _, c := range t.Columns {
		s += def(c.Name, duckTypes[c.Kind])
	}
	return s + "\n)"
}

// LatestColumnNames are the columns of the table's latest_ table but
// snapshot_id: ColumnNames without _raw.
func (t Table) LatestColumnNames() []string {
	names := t.ColumnNames()
	return names[:len(names)-1]
}

// RawKind is the kind of _raw in the catalogue: the record as sent, JSON.
const RawKind = "json"

// ColumnKind is a column of a table in Parquet order, with its kind's
// name (Kind.String; id and the parent's ID are strings, _raw is json).
type ColumnKind struct{ Name, Kind string }

// ColumnKinds are the table's columns in Parquet order, with their kinds.
func (t Table) ColumnKinds() []ColumnKind {
	out := []ColumnKind{{"id", String.String()}}
	if t.ParentColumn != "" {
		out = append(out, ColumnKind{t.ParentColumn, String.String()})
	}
	for _, c := range t.Columns {
		out = append(out, ColumnKind{c.Name, c.Kind.String()})
	}
	return append(out, ColumnKind{"_raw", RawKind})
}

// Tables returns every table of the snapshot (a copy: the catalogue itself
// cannot be changed), in the store's order.
func Tables() []Table {
	out := slices.Clone(tables)
	for i := range out {
		out[i].Columns = slices.Clone(out[i].Columns)
		for j := range out[i].Columns {
			out[i].Columns[j].Codes = slices.Clone(out[i].Columns[j].Codes)
		}
		if l := out[i].List; l != nil {
			c := *l
			out[i].List = &c
		}
	}
	return out
}

// Collection is a list of the service a snapshot is taken from, with the
// table its records go to. Its fields are extract.Collection's, in the
// same order, so that the walk converts one into the other
// (extract.Collection(c)) and the catalogue needs no HTTP client.
type Collection struct {
	Table  string // the snapshot table its records go to: customers
	Path   string // path (and query) of its first page, relative to its origin
	Front  bool   // on front_url (x-version: nxt); otherwise on base_url
	Object int    // object code of its errors (spec §7)
}

// Collections returns the lists the snapshot is taken from, in the
// catalogue's order, with the paths of the collections key applied. An
// unknown name is a *configkey.Error naming it.
func Collections(paths map[string]string) ([]Collection, error) {
	var out []Collection
	for _, t := range tables {
		if t.List != nil {
			out = append(out, Collection{Table: t.Name, Path: t.List.Path, Front: t.List.Front, Object: t.List.Object})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(paths)) {
		i := slices.IndexFunc(out, func(c Collection) bool { return c.Table == name })
		if i < 0 {
			return nil, &configkey.Error{Key: "collections." + name, Msg: fmt.Sprintf("unknown collection; known: %s", strings.Join(CollectionNames(), ", "))}
		}
		out[i].Path = paths[name]
	}
	return out, nil
}

// CollectionNames lists the tables filled from a list of the service.
func CollectionNames() []string {
	var names []string
	for _, t := range tables {
		if t.List != nil {
			names = append(names, t.Name)
		}
	}
	return names
}
