package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kubectl-arc/oracle/arc/vault"
)

// AutoscalingRunnerSet mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type AutoscalingRunnerSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   AutoscalingRunnerSetSpec   `json:"spec,omitempty"`
	Status AutoscalingRunnerSetStatus `json:"status,omitempty"`
}

// AutoscalingRunnerSetSpec mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type AutoscalingRunnerSetSpec struct {
	GitHubConfigUrl                     string                  `json:"githubConfigUrl,omitempty"`
	GitHubConfigSecret                  string                  `json:"githubConfigSecret,omitempty"`
	RunnerGroup                         string                  `json:"runnerGroup,omitempty"`
	RunnerScaleSetName                  string                  `json:"runnerScaleSetName,omitempty"`
	RunnerScaleSetLabels                []string                `json:"runnerScaleSetLabels,omitempty"`
	Proxy                               *ProxyConfig            `json:"proxy,omitempty"`
	GitHubServerTLS                     *TLSConfig              `json:"githubServerTLS,omitempty"`
	VaultConfig                         *VaultConfig            `json:"vaultConfig,omitempty"`
	Template                            corev1.PodTemplateSpec  `json:"template,omitempty"`
	AutoscalingListenerMetadata         *ResourceMeta           `json:"autoscalingListener,omitempty"`
	ListenerMetrics                     *MetricsConfig          `json:"listenerMetrics,omitempty"`
	ListenerTemplate                    *corev1.PodTemplateSpec `json:"listenerTemplate,omitempty"`
	ListenerServiceAccountMetadata      *ResourceMeta           `json:"listenerServiceAccountMetadata,omitempty"`
	ListenerRoleMetadata                *ResourceMeta           `json:"listenerRoleMetadata,omitempty"`
	ListenerRoleBindingMetadata         *ResourceMeta           `json:"listenerRoleBindingMetadata,omitempty"`
	ListenerConfigSecretMetadata        *ResourceMeta           `json:"listenerConfigSecretMetadata,omitempty"`
	EphemeralRunnerSetMetadata          *ResourceMeta           `json:"ephemeralRunnerSetMetadata,omitempty"`
	EphemeralRunnerMetadata             *ResourceMeta           `json:"ephemeralRunnerMetadata,omitempty"`
	EphemeralRunnerConfigSecretMetadata *ResourceMeta           `json:"ephemeralRunnerConfigSecretMetadata,omitempty"`
	MaxRunners                          *int                    `json:"maxRunners,omitempty"`
	MinRunners                          *int                    `json:"minRunners,omitempty"`
}

// TLSConfig mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type TLSConfig struct {
	CertificateFrom *TLSCertificateSource `json:"certificateFrom,omitempty"`
}

// TLSCertificateSource mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type TLSCertificateSource struct {
	ConfigMapKeyRef *corev1.ConfigMapKeySelector `json:"configMapKeyRef,omitempty"`
}

// ProxyConfig mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type ProxyConfig struct {
	HTTP    *ProxyServerConfig `json:"http,omitempty"`
	HTTPS   *ProxyServerConfig `json:"https,omitempty"`
	NoProxy []string           `json:"noProxy,omitempty"`
}

// ProxyServerConfig mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type ProxyServerConfig struct {
	Url                 string `json:"url,omitempty"`
	CredentialSecretRef string `json:"credentialSecretRef,omitempty"`
}

// VaultConfig mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type VaultConfig struct {
	Type          vault.VaultType      `json:"type,omitempty"`
	AzureKeyVault *AzureKeyVaultConfig `json:"azureKeyVault,omitempty"`
	Proxy         *ProxyConfig         `json:"proxy,omitempty"`
}

// AzureKeyVaultConfig mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type AzureKeyVaultConfig struct {
	URL             string `json:"url,omitempty"`
	TenantID        string `json:"tenantId,omitempty"`
	ClientID        string `json:"clientId,omitempty"`
	CertificatePath string `json:"certificatePath,omitempty"`
}

// MetricsConfig mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type MetricsConfig struct {
	Counters   map[string]*CounterMetric   `json:"counters,omitempty"`
	Gauges     map[string]*GaugeMetric     `json:"gauges,omitempty"`
	Histograms map[string]*HistogramMetric `json:"histograms,omitempty"`
}

// CounterMetric mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type CounterMetric struct {
	Labels []string `json:"labels"`
}

// GaugeMetric mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type GaugeMetric struct {
	Labels []string `json:"labels"`
}

// HistogramMetric mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type HistogramMetric struct {
	Labels  []string  `json:"labels"`
	Buckets []float64 `json:"buckets,omitempty"`
}

// AutoscalingRunnerSetStatus mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type AutoscalingRunnerSetStatus struct {
	CurrentRunners          int                       `json:"currentRunners"`
	Phase                   AutoscalingRunnerSetPhase `json:"phase"`
	PendingEphemeralRunners int                       `json:"pendingEphemeralRunners"`
	RunningEphemeralRunners int                       `json:"runningEphemeralRunners"`
	FailedEphemeralRunners  int                       `json:"failedEphemeralRunners"`
}

// AutoscalingRunnerSetPhase mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type AutoscalingRunnerSetPhase string

// VaultConfig mirrors (*AutoscalingRunnerSet).VaultConfig in ARC
// apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
func (ars *AutoscalingRunnerSet) VaultConfig() *VaultConfig {
	return ars.Spec.VaultConfig
}
