package dev.baton.devapi;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * A column of {@code kubectl get}: its definition as the server announces it, and how to compute its cell.
 *
 * @param name header (kubectl upper-cases it)
 * @param type {@code string}, {@code integer}, {@code number}, {@code boolean} or {@code date}
 * @param format {@code name} for the first column, else empty
 * @param description shown by {@code kubectl get -o wide} nowhere, but part of the definition
 * @param priority 0 is always shown, higher only with {@code -o wide}
 * @param cell the cell for one object (null for none)
 */
record TableColumn(String name, String type, String format, String description, int priority, Cell cell) {

  /** Computes the cell of one object. */
  @FunctionalInterface
  interface Cell {
    JsonNode of(JsonNode object, Instant now);
  }
}
