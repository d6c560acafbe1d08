package temporalserver

import "go.temporal.io/api/workflowservice/v1"

// quietLogger drops the SDK client's own log lines while waiting for readiness.
type quietLogger struct{}

func (quietLogger) Debug(string, ...any) {}
func (quietLogger) Info(string, ...any)  {}
func (quietLogger) Warn(string, ...any)  {}
func (quietLogger) Error(string, ...any) {}

func describeDefault() *workflowservice.DescribeNamespaceRequest {
	return &workflowservice.DescribeNamespaceRequest{Namespace: DefaultNamespace}
}
