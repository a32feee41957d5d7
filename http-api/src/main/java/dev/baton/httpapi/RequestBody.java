package dev.baton.httpapi;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.baton.api.json.Json;
import java.io.IOException;

/** Request bodies read strictly: one JSON document and nothing after it; a field given twice is an error. */
public final class RequestBody {

  private static final ObjectReader STRICT = Json.MAPPER.reader()
      .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .with(StreamReadFeature.STRICT_DUPLICATE_DETECTION);

  private RequestBody() {}

  /** @param expected what to send, for the message of an empty body */
  public static JsonNode read(byte[] body, String expected) {
    if (body == null || body.length == 0) {
      throw new InvalidRequest("the body is empty: send " + expected);
    }
    try {
      JsonNode json = STRICT.readTree(body);
      if (json == null || json.isMissingNode()) {
        throw new InvalidRequest("the body is empty: send " + expected);
      }
      return json;
    } catch (JsonProcessingException e) {
      throw new InvalidRequest("the body is not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new InvalidRequest("the body cannot be read: " + e.getMessage());
    }
  }
}
