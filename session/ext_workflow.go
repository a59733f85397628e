package session

import (
	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/model"
)

// ModelRegistry is the registry that providers registered by extensions join (ext.Host); nil
// when the session was made without one.
func (s *Session) ModelRegistry() *model.Registry { return s.reg }

// ObserveWorkflowActivity attaches observer to the session runner's workflow activity hub
// (ctx.observeWorkflowActivity): a snapshot first, then FIFO updates. Disposing the session's
// runner (replacement, reload, shutdown) disposes the subscription.
func (c *extContext) ObserveWorkflowActivity(observer ext.WorkflowActivityObserver) (*ext.WorkflowActivitySubscription, error) {
	if err := c.s.live("ctx.observeWorkflowActivity"); err != nil {
		return nil, err
	}
	return c.s.runner.WorkflowActivity().Observe(observer)
}
