package relations_test

import (
	"os"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/internal/relations"
)

// docs/store.md lists the read model's tables and views as query
// --tables describes them: one list, DocTable's.
func TestStoreDocListsTheReadModel(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/store.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := relations.DocTable(); !strings.Contains(string(doc), want) {
		t.Errorf("docs/store.md does not list the read model as query --tables describes it; want:\n%s", want)
	}
}
