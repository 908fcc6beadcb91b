/** The bind request body (spec: Bind request body). */
import * as v from 'valibot'
import { PlatformUserIdSchema, PlatformUsernameSchema, optionalField } from './fields.js'

/** `{code, platform_username, platform_user_id?}`; unknown fields are ignored. */
export const BindRequestSchema = v.object(
  {
    code: v.pipe(v.string('must be a string'), v.regex(/^[A-Z0-9]{4}$/, 'must be 4 characters, each A-Z or 0-9')),
    platform_username: PlatformUsernameSchema,
    platform_user_id: optionalField(PlatformUserIdSchema),
  },
  'must be a JSON object',
)

/** A valid bind request. */
export type BindRequest = v.InferOutput<typeof BindRequestSchema>
