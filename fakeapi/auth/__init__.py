"""Authentication, authorization, RBAC and impersonation (kube's apiserver/pkg/authentication,
pkg/authorization and plugin/pkg/auth/authorizer/rbac): who a request is and what it may do."""
