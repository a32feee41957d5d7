package dev.baton.workflow;

/**
 * One iteration of a map step, as its expressions see it: {@code item} (the list's element, plain JSON-able Java or a
 * Jackson node) and {@code index} (its position, from 0).
 */
public record Iteration(Object item, int index) {}
