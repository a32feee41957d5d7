package dev.baton.operator.autoscaling;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/** KEDA's TriggerAuthentication, untyped below its metadata, as {@link ScaledObject}. */
@Group(KedaObjects.GROUP)
@Version(KedaObjects.VERSION)
@Kind(TriggerAuthentication.KIND)
@Plural("triggerauthentications")
public class TriggerAuthentication extends GenericKubernetesResource implements Namespaced {

  public static final String KIND = "TriggerAuthentication";
}
