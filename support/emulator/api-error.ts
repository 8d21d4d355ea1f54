/**
 * A refused request: the HTTP status and the plain sentence that goes into
 * `{ok: false, error: {message}}`.
 */
export class ApiError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
  }
}
