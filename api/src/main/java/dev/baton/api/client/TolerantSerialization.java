package dev.baton.api.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.api.v1alpha1.TolerantSpec;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * How every Baton process reads resources from an API server: fabric8's serialization, where a field this version of
 * Baton does not know is skipped and said once ({@link UnknownFieldWarnings}) instead of failing the read.
 *
 * <p>Why here, on the mapper every client of a Baton process reads with, and not with
 * {@code @JsonIgnoreProperties(ignoreUnknown = true)} on each model class: a read that failed on an unknown field
 * failed a whole informer, and the operator stops when an informer stops (and {@code baton dev} with it). An unknown
 * field is normal on a cluster: a newer CRD meets an older operator or runtime during an upgrade or a rollback, or a
 * client writes a field an API server does not prune. The mapper covers every kind and every nested type, also one added
 * later by someone who does not think of it, where an annotation covers only the classes that carry it; and only the
 * mapper can say which field it skipped (an ignored property never reaches a problem handler).
 *
 * <p>A value of an enum field this version does not know is read as unset and noted on the spec
 * ({@link UnknownEnumValues}), where the translators refuse it by name.
 */
public final class TolerantSerialization extends KubernetesSerialization {

  private static final TolerantSerialization SHARED = new TolerantSerialization(UnknownFieldWarnings.logged());

  TolerantSerialization(UnknownFieldWarnings warnings) {
    // the handler goes on before fabric8 configures the mapper (in its constructor) and anything reads with it
    super(new ObjectMapper().addHandler(warnings).addHandler(new UnknownEnumValues())
        .addMixIn(TolerantSpec.class, UnknownEnumValues.MixIn.class), true);
  }

  /** The one serialization of this process: an unknown field is said once per kind and field, whichever client read it. */
  public static KubernetesSerialization shared() {
    return SHARED;
  }

  /** A client builder that reads with {@link #shared()}: the only way a Baton process builds a Kubernetes client. */
  public static KubernetesClientBuilder clientBuilder() {
    return new KubernetesClientBuilder().withKubernetesSerialization(SHARED);
  }
}
