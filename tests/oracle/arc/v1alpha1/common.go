package v1alpha1

// ResourceMeta mirrors ARC apis/actions.github.com/v1alpha1/common.go.
type ResourceMeta struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}
