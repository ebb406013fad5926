// Package v1alpha1 roots our declarations of ARC 0.11.0's types (../../../v11/v1alpha1) in an
// AutoscalingRunnerSet object, so that controller-gen generates its CRD from them
// (scripts/testbed.sh, gen_release_crds, at each release's k8s.io/api and controller-gen): that schema's defaults
// and int-or-string nodes are the defaults kubectl-arc ships for those releases
// (crates/kubectl-arc-core/src/defaults/). ARC's own fields declare no default; every default of
// the schema comes from k8s.io/api's markers in the pod templates.
//
// +groupName=actions.github.com
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	release "kubectl-arc/oracle/arc/releases/v11/v1alpha1"
)

// AutoscalingRunnerSet is the object whose CRD controller-gen writes.
//
// +kubebuilder:object:root=true
type AutoscalingRunnerSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec release.AutoscalingRunnerSetSpec `json:"spec,omitempty"`
}
