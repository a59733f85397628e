package llm

// ImageTokens is the token estimate of one image (pi's ≈1,200): providers bill an image by its
// pixels, not by the length of its base64 data, so the data is never counted as text.
const ImageTokens = 1200

// EstimateTokens estimates the tokens m adds to a request: about one per 4 bytes of its JSON form
// without image data, plus ImageTokens per image.
func EstimateTokens(m *Message) int64 {
	images := 0
	var content []Content
	for i, c := range m.Content {
		if c.Type != ContentImage {
			continue
		}
		if content == nil {
			content = append([]Content(nil), m.Content...)
		}
		content[i].Data = ""
		images++
	}
	mm := *m
	if content != nil {
		mm.Content = content
	}
	b, _ := mm.AppendJSON(nil)
	return int64(len(b)+3)/4 + int64(images)*ImageTokens
}
