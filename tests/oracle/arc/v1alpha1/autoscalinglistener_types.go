package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AutoscalingListener mirrors ARC apis/actions.github.com/v1alpha1/autoscalinglistener_types.go:
// the listener ARC's controller runs for one AutoscalingRunnerSet.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:JSONPath=".spec.githubConfigUrl",name=GitHub Configure URL,type=string
// +kubebuilder:printcolumn:JSONPath=".spec.autoscalingRunnerSetNamespace",name=AutoscalingRunnerSet Namespace,type=string
// +kubebuilder:printcolumn:JSONPath=".spec.autoscalingRunnerSetName",name=AutoscalingRunnerSet Name,type=string
type AutoscalingListener struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   AutoscalingListenerSpec   `json:"spec,omitempty"`
	Status AutoscalingListenerStatus `json:"status,omitempty"`
}

// AutoscalingListenerSpec mirrors ARC apis/actions.github.com/v1alpha1/autoscalinglistener_types.go.
// ARC calls the first ten fields required in prose only: the schema requires
// none of them.
type AutoscalingListenerSpec struct {
	GitHubConfigURL               string `json:"githubConfigUrl,omitempty"`
	GitHubConfigSecret            string `json:"githubConfigSecret,omitempty"`
	RunnerScaleSetID              int    `json:"runnerScaleSetId,omitempty"`
	AutoscalingRunnerSetNamespace string `json:"autoscalingRunnerSetNamespace,omitempty"`
	AutoscalingRunnerSetName      string `json:"autoscalingRunnerSetName,omitempty"`
	EphemeralRunnerSetName        string `json:"ephemeralRunnerSetName,omitempty"`
	// +kubebuilder:validation:Minimum:=0
	MaxRunners int `json:"maxRunners,omitempty"`
	// +kubebuilder:validation:Minimum:=0
	MinRunners       int                           `json:"minRunners,omitempty"`
	Image            string                        `json:"image,omitempty"`
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
	// +optional
	Proxy *ProxyConfig `json:"proxy,omitempty"`
	// +optional
	GitHubServerTLS *TLSConfig `json:"githubServerTLS,omitempty"`
	// +optional
	VaultConfig *VaultConfig `json:"vaultConfig,omitempty"`
	// +optional
	Metrics *MetricsConfig `json:"metrics,omitempty"`
	// +optional
	Template *corev1.PodTemplateSpec `json:"template,omitempty"`
	// +optional
	ConfigSecretMetadata *ResourceMeta `json:"configSecretMetadata,omitempty"`
	// +optional
	ServiceAccountMetadata *ResourceMeta `json:"serviceAccountMetadata,omitempty"`
	// +optional
	RoleMetadata *ResourceMeta `json:"roleMetadata,omitempty"`
	// +optional
	RoleBindingMetadata *ResourceMeta `json:"roleBindingMetadata,omitempty"`
}

// AutoscalingListenerStatus mirrors ARC apis/actions.github.com/v1alpha1/autoscalinglistener_types.go
// (empty).
type AutoscalingListenerStatus struct{}

// AutoscalingListenerList mirrors ARC apis/actions.github.com/v1alpha1/autoscalinglistener_types.go.
//
// +kubebuilder:object:root=true
type AutoscalingListenerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AutoscalingListener `json:"items"`
}
