/** Every error code the service reports, reused in response bodies, logs and metric labels. */
export const ErrorCode = {
  Unauthorized: 'unauthorized',
  RateLimited: 'rate_limited',
  UnknownCodeBudget: 'unknown_code_budget',
  UnknownCategory: 'unknown_category',
  InvalidCode: 'invalid_code',
  InvalidQuery: 'invalid_query',
  ValidationFailed: 'validation_failed',
  BodyTooLarge: 'body_too_large',
  BodyIncomplete: 'body_incomplete',
  LengthRequired: 'length_required',
  InvalidJson: 'invalid_json',
  UnsupportedMediaType: 'unsupported_media_type',
  NoUsableCode: 'no_usable_code',
  TooManyCodes: 'too_many_codes',
  TooManyStreams: 'too_many_streams',
  StreamCapacity: 'stream_capacity',
  SlowConsumer: 'slow_consumer',
  QueueUnavailable: 'queue_unavailable',
  InvalidIdempotencyKey: 'invalid_idempotency_key',
  IdempotencyKeyReused: 'idempotency_key_reused',
  ServiceUnavailable: 'service_unavailable',
  BindTimeout: 'bind_timeout',
  UnknownUsername: 'unknown_username',
  UpstreamFailed: 'upstream_failed',
  NotFound: 'not_found',
  MethodNotAllowed: 'method_not_allowed',
  Internal: 'internal_error',
} as const

/** One of the service's error codes. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode]
