/** The log request body (spec: Log request body; categories in queue/model/log-categories.ts). The code's format is checked apart (it is a 400, not a 422). */
import * as v from 'valibot'
import { FieldLimit, PlatformUserIdSchema, PlatformUsernameSchema, labelSchema, optionalField, textSchema } from './fields.js'

/** `{event_type, description, platform_username?, platform_user_id?, issued_by?, code?}`; unknown fields are ignored. */
export const LogRequestSchema = v.object(
  {
    event_type: labelSchema(FieldLimit.eventType),
    description: textSchema(FieldLimit.description),
    platform_username: optionalField(PlatformUsernameSchema),
    platform_user_id: optionalField(PlatformUserIdSchema),
    issued_by: optionalField(labelSchema(FieldLimit.issuedBy)),
    code: v.optional(v.unknown()),
  },
  'must be a JSON object',
)

/** A log request that passed validation (its code still unchecked). */
export type LogRequest = v.InferOutput<typeof LogRequestSchema>
