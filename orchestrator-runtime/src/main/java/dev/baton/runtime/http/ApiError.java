package dev.baton.runtime.http;

/** An HTTP error with a JSON body {@code {"error": code, "message": message}}. */
final class ApiError extends RuntimeException {

  private final int status;
  private final String code;

  private ApiError(int status, String code, String message) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
  }

  static final String BAD_REQUEST = "BadRequest";

  static ApiError of(int status, String code, String message) {
    return new ApiError(status, code, message);
  }

  static ApiError badRequest(String message) {
    return new ApiError(400, BAD_REQUEST, message);
  }

  static ApiError unauthorized(String message) {
    return new ApiError(401, "Unauthorized", message);
  }

  static ApiError forbidden(String message) {
    return new ApiError(403, "Forbidden", message);
  }

  static ApiError notFound(String message) {
    return new ApiError(404, "NotFound", message);
  }

  static ApiError conflict(String message) {
    return new ApiError(409, "Conflict", message);
  }

  static ApiError unprocessable(String message) {
    return new ApiError(422, "Unprocessable", message);
  }

  static ApiError tooLarge(String message) {
    return new ApiError(413, "PayloadTooLarge", message);
  }

  static ApiError unavailable(String message) {
    return new ApiError(503, "ServiceUnavailable", message);
  }

  int status() {
    return status;
  }

  String code() {
    return code;
  }
}
