"""kube-apiserver v1.35.4's feature gates at their defaults (``pkg/features/kube_features.go``),
for the gates defaulting, validation and the strategies read. The oracle runs with the defaults,
so fakeapi does too; ``enabled`` raises on a gate not listed, so a port cannot silently read a
gate nobody looked up."""

from __future__ import annotations

_GATES: dict[str, bool] = {
    "ClusterTrustBundleProjection": False,
    "ContainerRestartRules": True,
    "ContainerStopSignals": False,
    "DRAAdminAccess": True,
    "DRAConsumableCapacity": False,
    "DRADeviceBindingConditions": False,
    "DRADeviceTaints": False,
    "DRAExtendedResource": False,
    "DRAPartitionableDevices": False,
    "DRAPrioritizedList": True,
    "DRAResourceClaimDeviceStatus": True,
    "DynamicResourceAllocation": True,
    "EnvFiles": True,
    "HostnameOverride": True,
    "ImageVolume": True,
    "InPlacePodLevelResourcesVerticalScaling": False,
    "InPlacePodVerticalScaling": True,
    "MatchLabelKeysInPodTopologySpread": True,
    "MatchLabelKeysInPodTopologySpreadSelectorMerge": True,
    "PodCertificateRequest": False,
    "PodDeletionCost": True,
    "PodLevelResources": True,
    "PodLifecycleSleepActionAllowZero": True,
    "PodLogsQuerySplitStreams": False,
    "PodObservedGenerationTracking": True,
    "PodReadyToStartContainersCondition": True,
    "ProcMountType": True,
    "RecoverVolumeExpansionFailure": True,
    "RelaxedDNSSearchValidation": True,
    "RelaxedEnvironmentVariableValidation": True,
    "RelaxedServiceNameValidation": False,
    "RestartAllContainersOnContainerExits": False,
    "SELinuxChangePolicy": True,
    "SidecarContainers": True,
    "StrictIPCIDRValidation": False,
    "SupplementalGroupsPolicy": True,
    "TaintTolerationComparisonOperators": False,
    "UserNamespacesHostNetworkSupport": False,
    "UserNamespacesSupport": True,
    "VolumeAttributesClass": True,
}


def enabled(gate: str) -> bool:
    """Whether ``gate`` is on in kube-apiserver v1.35.4 by default."""
    return _GATES[gate]
