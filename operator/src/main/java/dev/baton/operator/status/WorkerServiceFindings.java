package dev.baton.operator.status;

import dev.baton.contract.topology.ServiceTopology;
import dev.baton.operator.topology.SyncReport;
import io.fabric8.kubernetes.api.model.apps.Deployment;

/**
 * What one reconciliation of a WorkerService found and did: the input of its status writer.
 *
 * @param service the service name the resource claims
 * @param topology whether exchanges, queues, bindings, user and permissions are as planned, and if not why
 * @param plan the planned topology, null when the spec could not be planned (invalid, conflict)
 * @param report what the broker holds, null when the broker was not reached or not touched
 * @param username the broker user, null when none is managed for this resource
 * @param credentialsSecret the Secret's name when it exists
 * @param deploymentRequested whether the spec has a deployment section
 * @param deployment the Deployment as Kubernetes reports it, null when absent
 * @param autoscaling the AutoscalingReady verdict, null when autoscaling is not asked for or was not looked at
 */
public record WorkerServiceFindings(
    String service,
    ConditionState topology,
    ServiceTopology plan,
    SyncReport report,
    String username,
    String credentialsSecret,
    boolean deploymentRequested,
    Deployment deployment,
    ConditionState autoscaling) {}
