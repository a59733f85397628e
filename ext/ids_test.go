package ext

import "testing"

// TestNewRowNeedsOnlyItsDeclaration: a row declared in a group but absent from the checklist
// order joins the table after the checklist events, which keep their order and ids.
func TestNewRowNeedsOnlyItsDeclaration(t *testing.T) {
	extra := []Spec{{Name: "brand_new_event"}}
	got := buildTable(sessionRows, compactionRows, promptRows, extra, agentRows, toolRows, modelRows, noticeRows)
	if len(got) != len(Table)+1 {
		t.Fatalf("table has %d rows, want %d", len(got), len(Table)+1)
	}
	for i := range Table {
		if got[i].Name != Table[i].Name {
			t.Fatalf("row %d is %s, want %s (checklist order kept)", i, got[i].Name, Table[i].Name)
		}
	}
	if got[len(got)-1].Name != "brand_new_event" {
		t.Fatalf("the new row is not last: %s", got[len(got)-1].Name)
	}
}
