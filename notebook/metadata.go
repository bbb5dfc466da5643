package notebook

// setMetadata sets the entries of md in nb's metadata (Options.Metadata).
func setMetadata(nb *Notebook, md map[string]any) {
	if len(md) == 0 {
		return
	}
	if nb.Metadata == nil {
		nb.Metadata = map[string]any{}
	}
	for k, v := range md {
		nb.Metadata[k] = v
	}
}
