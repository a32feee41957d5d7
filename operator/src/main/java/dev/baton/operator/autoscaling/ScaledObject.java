package dev.baton.operator.autoscaling;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * KEDA's ScaledObject, untyped below its metadata (Baton needs no KEDA library). A Java type of its own, so that the
 * fabric8 client needs no API discovery to name it (an informer of a kind the cluster does not serve is still built,
 * though never started, when JOSDK cleans up) and JOSDK's cache tells it from the TriggerAuthentication.
 */
@Group(KedaObjects.GROUP)
@Version(KedaObjects.VERSION)
@Kind(ScaledObject.KIND)
@Plural("scaledobjects")
public class ScaledObject extends GenericKubernetesResource implements Namespaced {

  public static final String KIND = "ScaledObject";
}
