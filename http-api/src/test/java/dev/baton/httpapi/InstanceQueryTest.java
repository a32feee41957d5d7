package dev.baton.httpapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The search's parameters: read, checked, and written back for a client; the cursor round-trips exactly. */
class InstanceQueryTest {

  static InstanceQuery parse(Map<String, String> params) {
    return InstanceQuery.parse(params.keySet(), params::get);
  }

  @Test
  void everyFilterIsReadAndWrittenBackAsTheSamePath() {
    InstanceQuery q = parse(Map.of("namespace", "shop", "workflow", "order", "status", "failed", "step", "charge",
        "errorCode", "CARD_DECLINED", "createdAfter", "2026-12-04T00:00:00Z", "limit", "20"));

    assertThat(q.status()).isEqualTo("FAILED");
    assertThat(q.limit()).isEqualTo(20);
    assertThat(q.cursor()).isNull();
    assertThat(parse(Map.of())).extracting(InstanceQuery::limit).isEqualTo(InstanceQuery.DEFAULT_LIMIT);
    String path = q.path();
    assertThat(path).isEqualTo("/api/v1/instances?namespace=shop&workflow=order&status=FAILED&step=charge"
        + "&errorCode=CARD_DECLINED&createdAfter=2026-12-04T00%3A00%3A00Z&limit=20");
  }

  @Test
  void aCursorNamesTheLastInstanceOfAPageToTheNanosecond() {
    InstanceQuery.Cursor at = new InstanceQuery.Cursor(Instant.parse("2026-12-05T03:14:02.123456Z"), UUID.randomUUID());

    InstanceQuery next = parse(Map.of("cursor", at.encode()));

    assertThat(next.cursor()).isEqualTo(at);
    assertThat(at.encode()).doesNotContain("/", "+", "=");
  }

  @Test
  void whatIsWrongIsNamed() {
    assertThatThrownBy(() -> parse(Map.of("stauts", "FAILED"))).hasMessageContaining("unknown parameter 'stauts'");
    assertThatThrownBy(() -> parse(Map.of("limit", "501"))).hasMessageContaining("from 1 to 500");
    assertThatThrownBy(() -> parse(Map.of("createdAfter", "2026-12-05T00:00:00Z",
        "createdBefore", "2026-12-04T00:00:00Z"))).hasMessageContaining("is not before createdBefore");
    assertThatThrownBy(() -> parse(Map.of("cursor", "bm90IGEgY3Vyc29y"))).isInstanceOf(InvalidRequest.class);
  }
}
