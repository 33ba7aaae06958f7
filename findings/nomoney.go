package findings

// NoMoney is what every output for people (the terminal's text, Markdown,
// HTML, XLSX, the workspace) shows in place of an amount that carries no
// money: a finding's whose rule names a record, not a sum (its amount is
// 0: multiple_active_charges, currency_mismatch, snapshot_incomplete, an
// orphan_reference of a record without an amount), and a rule's or a
// currency's total made of such findings alone (its gross is 0). The
// machine formats (JSON, CSV) keep the amount as it is, 0.00.
const NoMoney = "—"
