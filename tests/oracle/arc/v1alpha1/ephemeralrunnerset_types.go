package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EphemeralRunnerSetSpec mirrors ARC apis/actions.github.com/v1alpha1/ephemeralrunnerset_types.go.
type EphemeralRunnerSetSpec struct {
	Replicas                int                 `json:"replicas,omitempty"`
	PatchID                 int                 `json:"patchID"`
	EphemeralRunnerSpec     EphemeralRunnerSpec `json:"ephemeralRunnerSpec,omitempty"`
	EphemeralRunnerMetadata *ResourceMeta       `json:"ephemeralRunnerMetadata,omitempty"`
}

// EphemeralRunnerSetStatus mirrors ARC apis/actions.github.com/v1alpha1/ephemeralrunnerset_types.go.
type EphemeralRunnerSetStatus struct {
	CurrentReplicas         int                     `json:"currentReplicas"`
	PendingEphemeralRunners int                     `json:"pendingEphemeralRunners"`
	RunningEphemeralRunners int                     `json:"runningEphemeralRunners"`
	FailedEphemeralRunners  int                     `json:"failedEphemeralRunners"`
	Phase                   EphemeralRunnerSetPhase `json:"phase"`
}

// EphemeralRunnerSetPhase mirrors ARC apis/actions.github.com/v1alpha1/ephemeralrunnerset_types.go.
type EphemeralRunnerSetPhase string

// EphemeralRunnerSet mirrors ARC apis/actions.github.com/v1alpha1/ephemeralrunnerset_types.go.
type EphemeralRunnerSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   EphemeralRunnerSetSpec   `json:"spec,omitempty"`
	Status EphemeralRunnerSetStatus `json:"status,omitempty"`
}
