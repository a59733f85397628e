package chat

// CustomBlock is a block drawn entirely by an extension (a custom entry with a registered entry
// renderer, tui.md §6.1): a blank line, then Draw's lines; nothing at all when Draw declines.
type CustomBlock struct {
	Draw func(env *Env, width int) (lines []string, ok bool)
}

// Render implements Block.
func (b *CustomBlock) Render(env *Env, width int) []string {
	if b.Draw == nil {
		return nil
	}
	lines, ok := b.Draw(env, width)
	if !ok || len(lines) == 0 {
		return nil
	}
	return append([]string{""}, lines...)
}
