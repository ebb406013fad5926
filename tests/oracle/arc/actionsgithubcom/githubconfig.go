package actionsgithubcom

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strings"
)

// errConfigURLScope is the sentinel ARC wraps when a GitHub config URL names neither an
// enterprise, an organization nor a repository (ErrInvalidGitHubConfigURL in ARC's
// github/actions package); its text is ARC's.
var errConfigURLScope = errors.New("invalid config URL, should point to an enterprise, org, or repository")

// gitHubScope is what a githubConfigUrl points to.
type gitHubScope struct {
	enterprise, organization, repository string
}

// parseGitHubConfigURL follows ARC's ParseGitHubConfigFromURL: trim slashes off both ends, parse
// with net/url, then read the path's segments: one is an organization, two are an enterprise
// ("enterprises/NAME", any case) or a repository (OWNER/REPO); none or more than two is an error
// naming the reassembled URL.
func parseGitHubConfigURL(in string) (gitHubScope, error) {
	u, err := url.Parse(strings.Trim(in, "/"))
	if err != nil {
		return gitHubScope{}, err
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	switch {
	case len(parts) == 1 && parts[0] != "":
		return gitHubScope{organization: parts[0]}, nil
	case len(parts) == 2 && strings.EqualFold(parts[0], "enterprises"):
		return gitHubScope{enterprise: parts[1]}, nil
	case len(parts) == 2:
		return gitHubScope{organization: parts[0], repository: parts[1]}, nil
	}
	return gitHubScope{}, fmt.Errorf("%q: %w", u.String(), errConfigURLScope)
}

// gitHubURLLabelsError is the error ARC's newEphemeralRunnerSet returns when its
// applyGitHubURLLabels cannot parse the URL, wrapped twice as ARC wraps it; nil when it parses.
// The labels themselves are not built: they never enter the runner spec.
func gitHubURLLabelsError(configURL string) error {
	if _, err := parseGitHubConfigURL(configURL); err != nil {
		return fmt.Errorf("failed to apply GitHub URL labels: %v", fmt.Errorf("failed to parse github config from url: %v", err))
	}
	return nil
}

// mergeAnnotations behaves as ARC's ResourceBuilder.mergeAnnotations: nil when both are nil,
// else a clone of base with overwrite copied in. A nil base with a non-empty overwrite writes
// into a nil map, so it panics exactly where ARC's does.
func mergeAnnotations(base, overwrite map[string]string) map[string]string {
	if base == nil && overwrite == nil {
		return nil
	}
	merged := maps.Clone(base)
	maps.Copy(merged, overwrite)
	return merged
}

// GitHubURLLabelsError is the error ARC's newEphemeralRunnerSet returns for this githubConfigUrl,
// or nil when ARC accepts it.
func GitHubURLLabelsError(configURL string) error {
	return gitHubURLLabelsError(configURL)
}
