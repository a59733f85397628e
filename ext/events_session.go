package ext

import (
	"reflect"

	"github.com/atomic-cli/atomic/store"
)

// Session lifecycle events (events.md §3.1, §3.2).

// SessionStart fires on the new runtime after startup, reload, new, resume or fork, before
// resources_discover (events.md §3.2; canonical payload §4 row 5).
type SessionStart struct {
	Reason              string `json:"reason"` // startup|reload|new|resume|fork
	PreviousSessionFile string `json:"previousSessionFile,omitempty"`
}

// SessionShutdown fires before a started runtime is torn down (quit, reload, new, resume, fork).
type SessionShutdown struct {
	Reason            string `json:"reason"` // quit|reload|new|resume|fork
	TargetSessionFile string `json:"targetSessionFile,omitempty"`
}

// ResourcesDiscover fires right after session_start; results contribute resource paths.
type ResourcesDiscover struct {
	Cwd    string `json:"cwd"`
	Reason string `json:"reason"` // startup|reload
	// Contributed collects every handler's paths in load order (Accumulate), each tagged with the
	// contributing extension (events.md §3.1); not part of the payload handlers receive on the
	// wire.
	Contributed []DiscoveredResources `json:"-"`
}

// DiscoveredResources is one extension's contribution to resources_discover.
type DiscoveredResources struct {
	ExtensionPath string
	ResourcesDiscoverResult
}

// ResourcesDiscoverResult contributes skill, prompt-template and theme paths.
type ResourcesDiscoverResult struct {
	SkillPaths  []string `json:"skillPaths,omitempty"`
	PromptPaths []string `json:"promptPaths,omitempty"`
	ThemePaths  []string `json:"themePaths,omitempty"`
}

// SessionInfoChanged fires (fire-and-forget) when the session name is set or cleared.
type SessionInfoChanged struct {
	Name *string `json:"name"` // nil when cleared
}

// SessionBeforeSwitch fires before /new and /resume; a handler may cancel.
type SessionBeforeSwitch struct {
	Reason            string `json:"reason"` // new|resume|fork
	TargetSessionFile string `json:"targetSessionFile,omitempty"`
}

// CancelResult is the result of the session_before_* events that can only cancel.
type CancelResult struct {
	Cancel bool `json:"cancel,omitempty"`
}

// SessionSwitch is the pi/oh-my-pi after-event of a switch, emitted on the new runtime right
// after session_start to handlers subscribed under this name (events.md §4 row 4).
type SessionSwitch struct {
	Reason              string `json:"reason"`
	PreviousSessionFile string `json:"previousSessionFile,omitempty"`
}

// SessionBeforeFork fires before /fork or /clone (alias session_before_branch).
type SessionBeforeFork struct {
	EntryID  string `json:"entryId"`
	Position string `json:"position"` // before|at
}

// SessionBeforeForkResult may cancel the fork; SkipConversationRestore is reserved in the
// replacement lifecycle (events.md §4 row 3).
type SessionBeforeForkResult struct {
	Cancel                  bool `json:"cancel,omitempty"`
	SkipConversationRestore bool `json:"skipConversationRestore,omitempty"`
}

// SessionFork is pi's after-event of a fork (alias session_branch, oh-my-pi's name), emitted on the
// new runtime right after session_start.
type SessionFork struct {
	PreviousSessionFile string `json:"previousSessionFile,omitempty"`
}

// SessionBranch is oh-my-pi's after-event of a branch, emitted like SessionFork.
type SessionBranch struct {
	PreviousSessionFile string `json:"previousSessionFile,omitempty"`
}

// ProjectTrust asks whether the project in Cwd is trusted (Atomic).
type ProjectTrust struct {
	Cwd string `json:"cwd"`
}

// ProjectTrustResult is a trust decision: yes and no are decisive, undecided passes on.
type ProjectTrustResult struct {
	Trusted  string `json:"trusted"` // yes|no|undecided
	Remember bool   `json:"remember,omitempty"`
}

// SessionDirectory lets an extension choose the session directory (pi; no ctx in pi).
type SessionDirectory struct {
	Cwd string `json:"cwd"`
}

// SessionDirectoryResult names a session directory; the last non-empty one wins.
type SessionDirectoryResult struct {
	SessionDir string `json:"sessionDir,omitempty"`
}

// EntryAppended fires after an extension's appendEntry has persisted (fire-and-forget).
type EntryAppended struct {
	Entry *store.Entry `json:"entry"`
}

func (*SessionStart) eventID() EventID                       { return IDSessionStart }
func (*SessionShutdown) eventID() EventID                    { return IDSessionShutdown }
func (*ResourcesDiscover) eventID() EventID                  { return IDResourcesDiscover }
func (*SessionInfoChanged) eventID() EventID                 { return IDSessionInfoChanged }
func (*SessionBeforeSwitch) eventID() EventID                { return IDSessionBeforeSwitch }
func (*SessionSwitch) eventID() EventID                      { return IDSessionSwitch }
func (*SessionBeforeFork) eventID() EventID                  { return IDSessionBeforeFork }
func (*SessionFork) eventID() EventID                        { return IDSessionFork }
func (*SessionBranch) eventID() EventID                      { return IDSessionBranch }
func (*ProjectTrust) eventID() EventID                       { return IDProjectTrust }
func (*SessionDirectory) eventID() EventID                   { return IDSessionDirectory }
func (*EntryAppended) eventID() EventID                      { return IDEntryAppended }
func (*SessionStart) resultOf(None)                          {}
func (*SessionShutdown) resultOf(None)                       {}
func (*ResourcesDiscover) resultOf(*ResourcesDiscoverResult) {}
func (*SessionInfoChanged) resultOf(None)                    {}
func (*SessionBeforeSwitch) resultOf(*CancelResult)          {}
func (*SessionSwitch) resultOf(None)                         {}
func (*SessionBeforeFork) resultOf(*SessionBeforeForkResult) {}
func (*SessionFork) resultOf(None)                           {}
func (*SessionBranch) resultOf(None)                         {}
func (*ProjectTrust) resultOf(*ProjectTrustResult)           {}
func (*SessionDirectory) resultOf(*SessionDirectoryResult)   {}
func (*EntryAppended) resultOf(None)                         {}

func (e *ResourcesDiscover) applyFrom(extensionPath string, r any) error {
	e.Contributed = append(e.Contributed, DiscoveredResources{ExtensionPath: extensionPath, ResourcesDiscoverResult: *r.(*ResourcesDiscoverResult)})
	return nil
}

// resultRequired: a project_trust handler that returns nothing counts as an error (events.md §3.1).
func (*ProjectTrust) resultRequired() {}

func (r *ResourcesDiscoverResult) isSet() bool {
	return r != nil && len(r.SkillPaths)+len(r.PromptPaths)+len(r.ThemePaths) > 0
}
func (r *CancelResult) isSet() bool  { return r != nil && r.Cancel }
func (r *CancelResult) vetoes() bool { return r.Cancel }
func (r *SessionBeforeForkResult) isSet() bool {
	return r != nil && (r.Cancel || r.SkipConversationRestore)
}
func (r *SessionBeforeForkResult) vetoes() bool { return r.Cancel }
func (r *ProjectTrustResult) isSet() bool       { return r != nil && r.Trusted != "" }
func (r *ProjectTrustResult) decisive() bool    { return r.Trusted == "yes" || r.Trusted == "no" }
func (r *SessionDirectoryResult) isSet() bool   { return r != nil && r.SessionDir != "" }

var sessionRows = []Spec{
	{Name: "project_trust", Systems: "A", Family: "startup", Combine: FirstWins, Errors: Isolate, Awaited: true, Emitted: true, Doc: "startup, before project extensions load, when the cwd has trust-gated inputs", Payload: typeOf[ProjectTrust](), Result: typeOf[ProjectTrustResult]()},
	{Name: "session_directory", Systems: "P", Family: "startup", Combine: LastWins, Errors: Isolate, Awaited: true, Doc: "CLI startup before the session store exists, unless a session-dir flag is given", Payload: typeOf[SessionDirectory](), Result: typeOf[SessionDirectoryResult]()},
	{Name: "resources_discover", Systems: "AOP", Family: "startup", Combine: Accumulate, Errors: Isolate, Awaited: true, Emitted: true, Doc: "right after session_start; contributes skill, prompt and theme paths", Payload: typeOf[ResourcesDiscover](), Result: typeOf[ResourcesDiscoverResult]()},
	{Name: "session_start", Systems: "AOP", Family: "session", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "on the new runtime after startup, reload, new, resume or fork", Payload: typeOf[SessionStart]()},
	{Name: "session_info_changed", Stream: "session_info_changed", Systems: "A", Family: "session", Combine: Notify, Errors: Isolate, Awaited: false, Emitted: true, Doc: "the session name was set or cleared", Payload: typeOf[SessionInfoChanged]()},
	{Name: "session_before_switch", Systems: "AOP", Family: "session", Combine: Veto, Errors: Isolate, Awaited: true, Emitted: true, Doc: "before /new and /resume; may cancel", Payload: typeOf[SessionBeforeSwitch](), Result: typeOf[CancelResult]()},
	{Name: "session_switch", Systems: "OP", Family: "session", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "compatibility after-event of a switch, right after session_start on the new runtime", Payload: typeOf[SessionSwitch]()},
	{Name: "session_before_fork", Aliases: []string{"session_before_branch"}, Systems: "AOP", Family: "session", Combine: Veto, Errors: Isolate, Awaited: true, Emitted: true, Doc: "before /fork or /clone; may cancel", Payload: typeOf[SessionBeforeFork](), Result: typeOf[SessionBeforeForkResult]()},
	{Name: "session_fork", Systems: "P", Family: "session", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "compatibility after-event of a fork, right after session_start on the new runtime", Payload: typeOf[SessionFork]()},
	{Name: "session_branch", Systems: "O", Family: "session", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "compatibility after-event of a branch (oh-my-pi), right after session_start", Payload: typeOf[SessionBranch]()},
	{Name: "session_shutdown", Systems: "AOP", Family: "session", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Concurrent: true, Doc: "before a started runtime is torn down", Payload: typeOf[SessionShutdown]()},
	{Name: "entry_appended", Stream: "entry_appended", Systems: "A", Family: "session", Combine: Notify, Errors: Isolate, Awaited: false, Emitted: true, Doc: "an extension's appendEntry has persisted", Payload: typeOf[EntryAppended]()},
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }
