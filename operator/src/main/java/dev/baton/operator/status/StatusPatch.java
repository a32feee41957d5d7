package dev.baton.operator.status;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.baton.api.json.Json;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.api.config.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a freshly built status into a JOSDK result: a patch only when it differs from the current one (compared as
 * JSON trees), and then a patch of the status alone on a bare copy of the resource, which works both with
 * server-side apply (real clusters) and without it (the mock API server).
 */
public final class StatusPatch {

  /** Statuses compared and copied as JSON trees; an empty nested object of a status is a tree too, not an error. */
  private static final ObjectMapper JSON = Json.MAPPER.copy().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);
  private static final Logger LOG = LoggerFactory.getLogger(StatusPatch.class);

  private StatusPatch() {}

  public static <S, P extends CustomResource<?, S>> UpdateControl<P> ifChanged(P primary, S status, Supplier<P> bare) {
    return same(primary.getStatus(), status) ? UpdateControl.noUpdate() : UpdateControl.patchStatus(withStatus(primary, status, bare));
  }

  public static <S, P extends CustomResource<?, S>> ErrorStatusUpdateControl<P> errorIfChanged(
      P primary, S status, Supplier<P> bare) {
    return same(primary.getStatus(), status) ? ErrorStatusUpdateControl.defaultErrorProcessing()
        : ErrorStatusUpdateControl.patchStatus(withStatus(primary, status, bare));
  }

  /**
   * Patches the status at once when it differs from the current one, outside JOSDK's update controls (a cleanup has
   * none): by server-side apply with the controller's field manager where the operator applies so, as JOSDK does;
   * else as a JSON patch that sets the whole status (a merge patch would not replace the condition list on the mock
   * API server). A refused patch is logged, not thrown: the caller's next pass writes it again.
   */
  public static <S, P extends CustomResource<?, S>> void patchNow(P primary, S status, Supplier<P> bare,
      Context<P> context) {
    if (same(primary.getStatus(), status)) {
      return;
    }
    ControllerConfiguration<P> controller = context.getControllerConfiguration();
    var subresource = context.getClient().resource(withStatus(primary, status, bare)).subresource("status");
    try {
      if (controller.getConfigurationService().useSSAToPatchPrimaryResource()) {
        subresource.patch(new PatchContext.Builder().withPatchType(PatchType.SERVER_SIDE_APPLY)
            .withFieldManager(controller.fieldManager()).withForce(true).build());
      } else {
        subresource.patch(PatchContext.of(PatchType.JSON), JSON.writeValueAsString(
            List.of(Map.of("op", "add", "path", "/status", "value", JSON.valueToTree(status)))));
      }
    } catch (KubernetesClientException e) {
      LOG.warn("Could not write the status of {} {}/{} (HTTP {}): {}; written on the next pass", primary.getKind(),
          primary.getMetadata().getNamespace(), primary.getMetadata().getName(), e.getCode(), e.getMessage());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a status that is no JSON: " + e.getOriginalMessage(), e);
    }
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
