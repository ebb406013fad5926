package v1alpha1

// ResourceMeta mirrors ARC apis/actions.github.com/v1alpha1/common.go: labels
// and annotations for an object ARC creates.
type ResourceMeta struct {
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}
