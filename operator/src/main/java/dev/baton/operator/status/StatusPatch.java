package dev.baton.operator.status;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.baton.api.json.Json;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.util.function.Supplier;

/**
 * Turns a freshly built status into a JOSDK result: a patch only when it differs from the current one (compared as
 * JSON trees), and then a patch of the status alone on a bare copy of the resource, which works both with
 * server-side apply (real clusters) and without it (the mock API server).
 */
public final class StatusPatch {

  /** Statuses compared and copied as JSON trees; an empty nested object of a status is a tree too, not an error. */
  private static final ObjectMapper JSON = Json.MAPPER.copy().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

  private StatusPatch() {}

  public static <S, P extends CustomResource<?, S>> UpdateControl<P> ifChanged(P primary, S status, Supplier<P> bare) {
    return same(primary.getStatus(), status) ? UpdateControl.noUpdate() : UpdateControl.patchStatus(withStatus(primary, status, bare));
  }

  public static <S, P extends CustomResource<?, S>> ErrorStatusUpdateControl<P> errorIfChanged(
      P primary, S status, Supplier<P> bare) {
    return same(primary.getStatus(), status) ? ErrorStatusUpdateControl.defaultErrorProcessing()
        : ErrorStatusUpdateControl.patchStatus(withStatus(primary, status, bare));
  }

  /** A deep copy of a status, to start the next one from what the resource says now. */
  public static <S> S copy(S status, Class<S> type, Supplier<S> empty) {
    return status == null ? empty.get() : JSON.convertValue(JSON.valueToTree(status), type);
  }

  static boolean same(Object current, Object next) {
    return JSON.valueToTree(current).equals(JSON.valueToTree(next));
  }

  private static <S, P extends CustomResource<?, S>> P withStatus(P primary, S status, Supplier<P> bare) {
    P copy = bare.get();
    copy.setMetadata(new ObjectMetaBuilder()
        .withName(primary.getMetadata().getName())
        .withNamespace(primary.getMetadata().getNamespace())
        .build());
    copy.setStatus(status);
    return copy;
  }
}
