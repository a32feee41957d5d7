package dev.baton.httpapi;

/**
 * Every error the API answers, whatever its status: {@code {"error": "NotFound", "message": "no instance ..."}}, the
 * message saying what is wrong and, where it can, what to send instead.
 */
public record ErrorBody(String error, String message) {}
