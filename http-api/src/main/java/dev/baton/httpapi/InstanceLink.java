package dev.baton.httpapi;

/**
 * A child workflow step's link between two instances: the parent names each child it started, the child its parent.
 *
 * @param step the parent's step row that started the child ({@code invoice}, or {@code invoice[3]} inside a map)
 * @param id the other instance's id
 * @param workflow the other instance's Workflow
 * @param status the other instance's status
 */
public record InstanceLink(String step, String id, String workflow, String status) {}
