package dev.baton.runtime.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.httpapi.InvalidRequest;
import dev.baton.httpapi.OperationDocument;
import dev.baton.httpapi.OperationRequest;
import dev.baton.runtime.http.ApiAuth.Access;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bulk operations in the UI as HTML: the form, the question with the count, the progress. */
class OperationsViewTest {

  static final Viewer FULL = new Viewer(Access.FULL, null, "csrf-token-123456", true, false);
  static final Viewer READ_ONLY = new Viewer(Access.READ, null, "csrf-token-123456", true, false);
  static final Instant T = Instant.parse("2026-03-01T10:00:00Z");

  static OperationsView.Ask ask(String... pairs) {
    Map<String, String> params = new HashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      params.put(pairs[i], pairs[i + 1]);
    }
    return OperationsView.Ask.from(params::get);
  }

  @Test
  void theFormIsFilledInFromTheLinkAndCountsByGet() {
    String html = OperationsView.form(ask("namespace", "shop", "workflow", "order-fulfilment", "status", "FAILED",
        "action", "cancel", "createdAfter", " "), FULL, null);

    assertThat(html).contains("<form class=\"card\" method=\"get\" action=\"operations/confirm\"")
        .contains("<option value=\"cancel\" selected>Cancel</option>")
        .contains("<input name=\"namespace\" id=\"op-namespace\" value=\"shop\">")
        .contains("<input name=\"workflow\" id=\"op-workflow\" value=\"order-fulfilment\">")
        .contains("<option selected>FAILED</option>")
        .contains("<input name=\"createdAfter\" id=\"op-createdAfter\" value=\"\" placeholder=")
        .contains("<button type=\"submit\" id=\"count\">Count matching instances</button>")
        .contains("href=\"operations\" class=\"here\""); // the navigation's section
  }

  @Test
  void theConfirmationSaysWhatWillBeDoneToHowManyAndCarriesTheFormInHiddenFields() {
    OperationsView.Ask ask = ask("action", "retry", "namespace", "shop", "workflow", "order-fulfilment", "status",
        "FAILED", "errorCode", "PROVIDER_DOWN");

    String html = OperationsView.confirm(ask, 3000, FULL, null);

    assertThat(html).contains("<p class=\"card\" id=\"question\" data-matched=\"3000\">Retry 3,000 instances of"
        + " shop/order-fulfilment (status FAILED, error code PROVIDER_DOWN)?</p>")
        .contains("<form class=\"actions\" method=\"post\" action=\"operations\" id=\"confirm-form\">"
            + "<input type=\"hidden\" name=\"baton-csrf\"".replace("baton-csrf", UiAuth.CSRF_FIELD))
        .contains("<input type=\"hidden\" name=\"action\" value=\"retry\">")
        .contains("<input type=\"hidden\" name=\"errorCode\" value=\"PROVIDER_DOWN\">")
        .contains("<button type=\"submit\" id=\"confirm\">Retry 3,000 instances</button>")
        .contains("href=\"operations/new?action=retry&amp;namespace=shop&amp;workflow=order-fulfilment&amp;"
            + "status=FAILED&amp;errorCode=PROVIDER_DOWN\"");
  }

  @Test
  void theQuestionNamesEachActionAndTheFilterInWords() {
    assertThat(ask("action", "cancel-compensate", "workflow", "order", "businessKeyPrefix", "acme-").question(1))
        .isEqualTo("Cancel 1 instance of order in every namespace (business key prefix \"acme-\"), compensating"
            + " their completed steps first?");
    assertThat(ask("action", "signal", "signal", "approve", "namespace", "shop", "step", "approval").question(12))
        .isEqualTo("Send signal approve to 12 instances in namespace shop (step approval)?");
    assertThat(ask("action", "cancel", "createdBefore", "2026-01-01T00:00:00Z").question(2))
        .isEqualTo("Cancel 2 instances in every namespace (created before 2026-01-01T00:00:00Z)?");
  }

  @Test
  void aCancelConfirmsWithTheDangerButtonAndNothingMatchedOffersNoButton() {
    assertThat(OperationsView.confirm(ask("action", "cancel", "namespace", "shop"), 5, FULL, null))
        .contains("<button type=\"submit\" id=\"confirm\" class=\"danger\">Cancel 5 instances</button>");

    String none = OperationsView.confirm(ask("action", "retry", "namespace", "shop", "status", "FAILED"), 0, FULL,
        null);
    assertThat(none).contains("No instance in namespace shop (status FAILED) matches: there is nothing to do.")
        .doesNotContain("id=\"confirm\"");
  }

  @Test
  void aReadOnlySessionCanCountButNotConfirmAndARefusalIsSaid() {
    String html = OperationsView.confirm(ask("action", "retry", "namespace", "shop"), 4, READ_ONLY, null);
    assertThat(html).contains("<button type=\"submit\" id=\"confirm\" disabled title=\"read-only session\">");
    assertThat(OperationsView.form(ask(), READ_ONLY, null)).contains("acting on them needs the full token");

    String refused = OperationsView.confirm(ask("action", "retry", "namespace", "shop"), 4, FULL,
        "You may not update workflows/instances in namespace shop");
    assertThat(refused).contains("role=\"alert\">You may not update workflows/instances in namespace shop")
        .contains("id=\"confirm\" disabled title=\"not allowed\"");
  }

  @Test
  void theRequestIsTheApisWithItsChecks() {
    OperationRequest cancel = ask("action", "cancel-compensate", "workflow", "order", "status", "running")
        .request(false);
    assertThat(cancel.action()).isEqualTo("cancel");
    assertThat(cancel.compensate()).isTrue();
    assertThat(cancel.dryRun()).isFalse();
    assertThat(cancel.query().status()).isEqualTo("RUNNING");

    OperationRequest signal = ask("action", "signal", "signal", "approve", "body", "{\"by\": \"ann\"}",
        "namespace", "shop").request(true);
    assertThat(signal.signal()).isEqualTo("approve");
    assertThat(signal.body().get("by").asText()).isEqualTo("ann");
    assertThat(signal.dryRun()).isTrue();

    assertThatThrownBy(() -> ask("action", "retry").request(true)).isInstanceOf(InvalidRequest.class)
        .hasMessageContaining("at least one of the search's fields");
    assertThatThrownBy(() -> ask("action", "signal", "namespace", "shop").request(true))
        .hasMessageContaining("needs signal");
    assertThatThrownBy(() -> ask("action", "signal", "signal", "go", "body", "{", "namespace", "shop").request(true))
        .hasMessageContaining("not JSON");
    assertThatThrownBy(() -> ask("action", "retry", "createdAfter", "yesterday").request(true))
        .hasMessageContaining("not an RFC 3339 time");
    assertThatThrownBy(() -> ask("action", "delete-all", "namespace", "shop").request(true))
        .hasMessageContaining("choose what to do");
  }

  @Test
  void aRunningOperationShowsItsProgressAndRefreshesItself() {
    OperationDocument op = new OperationDocument("0b9e4f7e-1111-4000-8000-000000000001", "retry",
        Map.of("namespace", "shop", "workflow", "order-fulfilment", "status", "FAILED"), "RUNNING", 3000, 1150, 50,
        "instance 42: not FAILED", "ann", T, null);

    String html = OperationsView.page(op, FULL, null, T.plusSeconds(30));

    assertThat(html).contains("<h1>Retry of shop/order-fulfilment (status FAILED) <span class=\"muted mono\">"
        + "0b9e4f7e-1111-4000-8000-000000000001</span></h1>")
        .contains("<div id=\"live\" data-live=\"1500\" data-state=\"RUNNING\">")
        .contains("<span class=\"badge status-running\">RUNNING</span>")
        .contains("<progress id=\"operation-progress\" max=\"3000\" value=\"1200\">40 %</progress>")
        .contains("<b id=\"operation-acted\">1,200</b> of <b id=\"operation-matched\">3,000</b> (40 %)")
        .contains("1,150 done").contains("<span id=\"operation-failed\" class=\"status-failed\">50 failed</span>")
        .contains("<dd id=\"last-failure\" class=\"status-failed\">instance 42: not FAILED</dd>")
        .contains("<dd id=\"operation-filter\">namespace shop, workflow order-fulfilment, status FAILED</dd>")
        .contains("<a id=\"operation-instances\" href=\"workflows/shop/order-fulfilment\">");
  }

  @Test
  void aFinishedOperationStopsRefreshing() {
    OperationDocument op = new OperationDocument("0b9e4f7e-1111-4000-8000-000000000002", "cancel",
        Map.of("namespace", "shop"), "DONE", 0, 0, 0, null, "ann", T, T.plusSeconds(2));

    String html = OperationsView.live(op, T.plusSeconds(30));

    assertThat(html).startsWith("<div id=\"live\" data-state=\"DONE\">").doesNotContain("data-live")
        .contains("<span class=\"badge status-done\">DONE</span>")
        .contains("<progress id=\"operation-progress\" max=\"1\" value=\"1\">100 %</progress>")
        .contains("<dd id=\"operation-finished\">").contains("(took 2.0 s)")
        .doesNotContain("last-failure").doesNotContain("operation-instances");
  }

  @Test
  void theInstancesPageLinksToTheFormWithItsWorkflowAndStatus() {
    InstancesView.Query q = new InstancesView.Query("shop", "order fulfilment", "RUNNING", null, null, 50);
    assertThat(InstancesView.actOnThese(q))
        .isEqualTo("operations/new?namespace=shop&workflow=order%20fulfilment&status=RUNNING&action=cancel");
  }
}
