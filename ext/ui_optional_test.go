package ext

import (
	"testing"
	"time"
)

type placedUI struct {
	NoUI
	msg     string
	visible *bool
	ind     *WorkingIndicator
	placed  string
	plain   string
}

func (u *placedUI) SetWidget(key string, _ []string)             { u.plain = key }
func (u *placedUI) SetWorkingMessage(m string)                   { u.msg = m }
func (u *placedUI) SetWorkingVisible(v bool)                     { u.visible = &v }
func (u *placedUI) SetWorkingIndicator(i *WorkingIndicator)      { u.ind = i }
func (u *placedUI) SetWidgetAt(key string, _ []string, p string) { u.placed = key + "@" + p }

type plainUI struct {
	NoUI
	plain string
}

func (u *plainUI) SetWidget(key string, _ []string) { u.plain = key }

func TestOptionalUICapabilities(t *testing.T) {
	u := &placedUI{}
	SetWorkingMessage(u, "busy")
	SetWorkingVisible(u, false)
	SetWorkingIndicator(u, &WorkingIndicator{Frames: []string{}, Interval: time.Second})
	SetWidgetAt(u, "w", []string{"x"}, WidgetBelowEditor)
	if u.msg != "busy" || u.visible == nil || *u.visible || u.ind == nil || u.ind.Frames == nil || u.placed != "w@belowEditor" || u.plain != "" {
		t.Fatalf("capabilities not forwarded: %+v", u)
	}
	p := &plainUI{}
	SetWorkingMessage(p, "ignored") // no capability: nothing happens, nothing panics
	SetWidgetAt(p, "w", []string{"x"}, WidgetBelowEditor)
	if p.plain != "w" {
		t.Fatal("a UI without placement did not get the widget through SetWidget")
	}
}
