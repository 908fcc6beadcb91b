/** The safety request body: `{platform_user_id, platform_username?, code?}`; the code's format is a 400, checked apart. */
import * as v from 'valibot'
import { optionalField, PlatformUserIdSchema, PlatformUsernameSchema } from './fields.js'

/** The body of POST /api/v1/safety; unknown fields are ignored. */
export const SafetyRequestSchema = v.object(
  {
    platform_user_id: PlatformUserIdSchema,
    platform_username: optionalField(PlatformUsernameSchema),
    code: v.optional(v.unknown()),
  },
  'must be a JSON object',
)

/** A safety request that passed validation (its code still unchecked). */
export type SafetyRequest = v.InferOutput<typeof SafetyRequestSchema>
