package schemas

import "time"

// HealthProbeVersion is the version of HealthProbe.
const HealthProbeVersion = 1

// HealthProbe is the small JSON object the HealthCheck workflow writes to the store, reads back
// and deletes, proving that workers reach the store with working credentials.
type HealthProbe struct {
	Version    int       `json:"version"`
	WorkflowID string    `json:"workflow_id"`
	RunID      string    `json:"run_id"`
	WrittenAt  time.Time `json:"written_at"`
	// Payload is a deterministic filler, so the probe is more than a few bytes.
	Payload string `json:"payload"`
}

// Equal reports whether two probes carry the same content (times compared as instants).
func (p HealthProbe) Equal(o HealthProbe) bool {
	return p.Version == o.Version && p.WorkflowID == o.WorkflowID && p.RunID == o.RunID &&
		p.WrittenAt.Equal(o.WrittenAt) && p.Payload == o.Payload
}
