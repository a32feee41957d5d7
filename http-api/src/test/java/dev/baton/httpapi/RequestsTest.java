package dev.baton.httpapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Request bodies are refused with a message that names the field and says what to send. */
class RequestsTest {

  private static byte[] body(String json) {
    return json.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aStartNeedsABusinessKeyAndAnObjectInput() {
    assertThat(StartRequest.parse(body("{\"businessKey\": \"o-1\"}")).input().isEmpty()).isTrue();
    assertThatThrownBy(() -> StartRequest.parse(body("{\"input\": {}}"))).isInstanceOf(InvalidRequest.class)
        .hasMessageContaining("businessKey is missing");
    assertThatThrownBy(() -> StartRequest.parse(body("{\"businessKey\": \"o\", \"input\": [1]}")))
        .hasMessageContaining("input must be a JSON object, got array");
    assertThatThrownBy(() -> StartRequest.parse(body("{\"businessKey\": \"o\", \"inptu\": {}}")))
        .hasMessageContaining("unknown field 'inptu'");
    assertThatThrownBy(() -> StartRequest.parse(body("{\"businessKey\": \"a\", \"businessKey\": \"b\"}")))
        .hasMessageContaining("not valid JSON");
  }

  @Test
  void aBatchNamesTheItemAtFault() {
    assertThatThrownBy(() -> BatchStartRequest.parse(body(
        "{\"instances\": [{\"businessKey\": \"a\"}, {\"businessKey\": \"\"}]}")))
        .isInstanceOf(InvalidRequest.class).hasMessageContaining("instances[1].businessKey must be a non-empty string");
    assertThatThrownBy(() -> BatchStartRequest.parse(body("{\"instances\": []}")))
        .hasMessageContaining("a batch takes 1 to " + BatchStartRequest.MAX_INSTANCES);
  }

  @Test
  void aCancelTakesNothingOrCompensate() {
    assertThat(CancelRequest.parse(new byte[0]).compensate()).isFalse();
    assertThat(CancelRequest.parse(body("{\"compensate\": true}")).compensate()).isTrue();
    assertThatThrownBy(() -> CancelRequest.parse(body("{\"compensate\": \"yes\"}")))
        .hasMessageContaining("compensate must be true or false");
  }
}
