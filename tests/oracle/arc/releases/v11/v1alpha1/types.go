// Package v1alpha1 declares, in our own words, the types of ARC's API package
// (apis/actions.github.com/v1alpha1) that an AutoscalingRunnerSet's spec reaches, as they are
// in gha-runner-scale-set 0.11.0 (0.9's plus listenerMetrics): field names, order, types and
// json tags as ARC has them, which is what reflect, the JSON decoder and go-spew see. The
// package name must stay v1alpha1: go-spew prints it.
package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"

	"kubectl-arc/oracle/arc/hash"
)

// AutoscalingRunnerSetSpec mirrors ARC's AutoscalingRunnerSetSpec (autoscalingrunnerset_types.go).
type AutoscalingRunnerSetSpec struct {
	GitHubConfigUrl    string                  `json:"githubConfigUrl,omitempty"`
	GitHubConfigSecret string                  `json:"githubConfigSecret,omitempty"`
	RunnerGroup        string                  `json:"runnerGroup,omitempty"`
	RunnerScaleSetName string                  `json:"runnerScaleSetName,omitempty"`
	Proxy              *ProxyConfig            `json:"proxy,omitempty"`
	GitHubServerTLS    *GitHubServerTLSConfig  `json:"githubServerTLS,omitempty"`
	Template           corev1.PodTemplateSpec  `json:"template,omitempty"`
	ListenerMetrics    *MetricsConfig          `json:"listenerMetrics,omitempty"`
	ListenerTemplate   *corev1.PodTemplateSpec `json:"listenerTemplate,omitempty"`
	MaxRunners         *int                    `json:"maxRunners,omitempty"`
	MinRunners         *int                    `json:"minRunners,omitempty"`
}

// GitHubServerTLSConfig mirrors ARC's GitHubServerTLSConfig (autoscalingrunnerset_types.go).
type GitHubServerTLSConfig struct {
	CertificateFrom *TLSCertificateSource `json:"certificateFrom,omitempty"`
}

// ProxyConfig mirrors ARC's ProxyConfig (autoscalingrunnerset_types.go).
type ProxyConfig struct {
	HTTP    *ProxyServerConfig `json:"http,omitempty"`
	HTTPS   *ProxyServerConfig `json:"https,omitempty"`
	NoProxy []string           `json:"noProxy,omitempty"`
}

// ProxyServerConfig mirrors ARC's ProxyServerConfig (autoscalingrunnerset_types.go).
type ProxyServerConfig struct {
	Url                 string `json:"url,omitempty"`
	CredentialSecretRef string `json:"credentialSecretRef,omitempty"`
}

// TLSCertificateSource mirrors ARC's TLSCertificateSource (autoscalingrunnerset_types.go).
type TLSCertificateSource struct {
	ConfigMapKeyRef *corev1.ConfigMapKeySelector `json:"configMapKeyRef,omitempty"`
}

// MetricsConfig mirrors ARC's MetricsConfig (autoscalingrunnerset_types.go).
type MetricsConfig struct {
	Counters   map[string]*CounterMetric   `json:"counters,omitempty"`
	Gauges     map[string]*GaugeMetric     `json:"gauges,omitempty"`
	Histograms map[string]*HistogramMetric `json:"histograms,omitempty"`
}

// CounterMetric mirrors ARC's CounterMetric (autoscalingrunnerset_types.go).
type CounterMetric struct {
	Labels []string `json:"labels"`
}

// GaugeMetric mirrors ARC's GaugeMetric (autoscalingrunnerset_types.go).
type GaugeMetric struct {
	Labels []string `json:"labels"`
}

// HistogramMetric mirrors ARC's HistogramMetric (autoscalingrunnerset_types.go): float64
// buckets, which go-spew prints with strconv.FormatFloat(f, 'g', -1, 64).
type HistogramMetric struct {
	Labels  []string  `json:"labels"`
	Buckets []float64 `json:"buckets,omitempty"`
}

// EphemeralRunnerSpec mirrors ARC's EphemeralRunnerSpec (ephemeralrunner_types.go).
type EphemeralRunnerSpec struct {
	GitHubConfigUrl        string                 `json:"githubConfigUrl,omitempty"`
	GitHubConfigSecret     string                 `json:"githubConfigSecret,omitempty"`
	RunnerScaleSetId       int                    `json:"runnerScaleSetId,omitempty"`
	Proxy                  *ProxyConfig           `json:"proxy,omitempty"`
	ProxySecretRef         string                 `json:"proxySecretRef,omitempty"`
	GitHubServerTLS        *GitHubServerTLSConfig `json:"githubServerTLS,omitempty"`
	corev1.PodTemplateSpec `json:",inline"`
}

// RunnerSetSpec is what ARC's (*AutoscalingRunnerSet).RunnerSetSpecHash passes to
// hash.ComputeTemplateHash: a pointer to a pointer to its function-local struct runnerSetSpec
// (which go-spew prints as "(**v1alpha1.runnerSetSpec)"), the fields copied from the spec. Our
// own code; the local type is declared, as in ARC, inside the function.
func RunnerSetSpec(s *AutoscalingRunnerSetSpec) interface{} {
	type runnerSetSpec struct {
		GitHubConfigUrl    string
		GitHubConfigSecret string
		RunnerGroup        string
		RunnerScaleSetName string
		Proxy              *ProxyConfig
		GitHubServerTLS    *GitHubServerTLSConfig
		Template           corev1.PodTemplateSpec
	}
	spec := &runnerSetSpec{
		GitHubConfigUrl:    s.GitHubConfigUrl,
		GitHubConfigSecret: s.GitHubConfigSecret,
		RunnerGroup:        s.RunnerGroup,
		RunnerScaleSetName: s.RunnerScaleSetName,
		Proxy:              s.Proxy,
		GitHubServerTLS:    s.GitHubServerTLS,
		Template:           s.Template,
	}
	return &spec
}

// RunnerSetSpecHash mirrors (*AutoscalingRunnerSet).RunnerSetSpecHash: the value the controller
// compares with the newest EphemeralRunnerSet's actions.github.com/runner-spec-hash.
func RunnerSetSpecHash(s *AutoscalingRunnerSetSpec) string {
	return hash.ComputeTemplateHash(RunnerSetSpec(s))
}

// ListenerSpec is what ARC's (*AutoscalingRunnerSet).ListenerSpecHash passes to
// hash.ComputeTemplateHash: a **AutoscalingRunnerSetSpec of a copy of the spec. ARC copies with
// its generated DeepCopy, which keeps every value and every nil-versus-empty distinction; go-spew
// prints values, not addresses, so a copy of the struct prints the same text.
func ListenerSpec(s *AutoscalingRunnerSetSpec) interface{} {
	c := *s
	spec := &c
	return &spec
}

// ListenerSpecHash mirrors (*AutoscalingRunnerSet).ListenerSpecHash: the value the controller
// compares with the listener's actions.github.com/runner-spec-hash.
func ListenerSpecHash(s *AutoscalingRunnerSetSpec) string {
	return hash.ComputeTemplateHash(ListenerSpec(s))
}
