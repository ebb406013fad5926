package actionsgithubcom

import (
	"strconv"

	"kubectl-arc/oracle/arc/v1alpha1"
)

// runnerScaleSetIDAnnotationKey mirrors the constant of the same name in ARC
// controllers/actions.github.com/autoscalingrunnerset_controller.go.
const runnerScaleSetIDAnnotationKey = "runner-scale-set-id"

// EphemeralRunnerSetIntegrityHash mirrors ephemeralRunnerSetIntegrityHash in
// ARC controllers/actions.github.com/resourcebuilder.go, exactly: a copy of
// the spec in a function-local struct, hashed through a pointer.
func EphemeralRunnerSetIntegrityHash(ers *v1alpha1.EphemeralRunnerSet) string {
	type data struct {
		EphemeralRunnerSpec v1alpha1.EphemeralRunnerSpec `json:"ephemeralRunnerSpec"`
	}

	d := data{
		EphemeralRunnerSpec: ers.Spec.EphemeralRunnerSpec,
	}
	return ComputeTemplateHash(&d)
}

// EphemeralRunnerSetIntegritySpew returns the spew text that
// EphemeralRunnerSetIntegrityHash hashes. Its local type has the same
// declaration and package, so it prints as the same
// "(*actionsgithubcom.data)".
func EphemeralRunnerSetIntegritySpew(ers *v1alpha1.EphemeralRunnerSet) string {
	type data struct {
		EphemeralRunnerSpec v1alpha1.EphemeralRunnerSpec `json:"ephemeralRunnerSpec"`
	}

	d := data{
		EphemeralRunnerSpec: ers.Spec.EphemeralRunnerSpec,
	}
	return TemplateSpew(&d)
}

// NewEphemeralRunnerSetSpec mirrors the spec part of newEphemeralRunnerSet in
// ARC controllers/actions.github.com/resourcebuilder.go: the desired
// EphemeralRunnerSetSpec built in memory from the (decoded) AutoscalingRunnerSet.
// The labels, annotations, GitHub URL labels (applyGitHubURLLabels, which can
// also fail on an unparsable githubConfigUrl) and the owner reference that
// newEphemeralRunnerSet adds are not mirrored: none of them enter the hash.
func NewEphemeralRunnerSetSpec(autoscalingRunnerSet *v1alpha1.AutoscalingRunnerSet) (v1alpha1.EphemeralRunnerSetSpec, error) {
	runnerScaleSetID, err := strconv.Atoi(autoscalingRunnerSet.Annotations[runnerScaleSetIDAnnotationKey])
	if err != nil {
		return v1alpha1.EphemeralRunnerSetSpec{}, err
	}

	spec := v1alpha1.EphemeralRunnerSetSpec{
		Replicas: 0,
		EphemeralRunnerSpec: v1alpha1.EphemeralRunnerSpec{
			RunnerScaleSetID:                    runnerScaleSetID,
			GitHubConfigURL:                     autoscalingRunnerSet.Spec.GitHubConfigUrl,
			GitHubConfigSecret:                  autoscalingRunnerSet.Spec.GitHubConfigSecret,
			Proxy:                               autoscalingRunnerSet.Spec.Proxy,
			GitHubServerTLS:                     autoscalingRunnerSet.Spec.GitHubServerTLS,
			PodTemplateSpec:                     autoscalingRunnerSet.Spec.Template,
			VaultConfig:                         autoscalingRunnerSet.VaultConfig(),
			EphemeralRunnerConfigSecretMetadata: autoscalingRunnerSet.Spec.EphemeralRunnerConfigSecretMetadata,
		},
		EphemeralRunnerMetadata: autoscalingRunnerSet.Spec.EphemeralRunnerMetadata,
	}
	return spec, nil
}
