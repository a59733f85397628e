package ext

import (
	"context"
	"strings"
	"testing"
)

// Without a component UI, Custom returns (nil, false) at once, never calls the factory, and a
// debug diagnostic names the call; the widget, footer and header calls name theirs too.
func TestCustomWithoutComponentUI(t *testing.T) {
	var got []string
	SetUIDebug(func(call, msg string) { got = append(got, call+": "+msg) })
	defer SetUIDebug(nil)
	called := false
	factory := func(ComponentHandle) Component { called = true; return Lines{"x"} }
	v, ok := Custom(context.Background(), NoUI{}, factory, CustomOptions{Overlay: true})
	if v != nil || ok || called {
		t.Fatalf("Custom on NoUI = %v, %v (factory called %v), want nil, false, not called", v, ok, called)
	}
	SetWidgetComponent(NoUI{}, "w", factory, WidgetAboveEditor)
	SetFooterComponent(NoUI{}, factory)
	SetHeaderComponent(NoUI{}, factory)
	SetFooterComponent(NoUI{}, nil) // restoring needs no diagnostic
	want := []string{"ctx.ui.custom", "ctx.ui.setWidget", "ctx.ui.setFooter", "ctx.ui.setHeader"}
	if len(got) != len(want) {
		t.Fatalf("diagnostics %q, want one each for %v", got, want)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w+": ") {
			t.Errorf("diagnostic %d = %q, want it to name %s", i, got[i], w)
		}
	}
	if called {
		t.Error("a factory ran without a component UI")
	}
}

// Lines renders its lines and ignores keys.
func TestLinesComponent(t *testing.T) {
	l := Lines{"a", "b"}
	l.HandleInput("\r")
	l.Invalidate()
	if got := l.Render(10); strings.Join(got, ",") != "a,b" {
		t.Fatalf("Render = %q", got)
	}
}
