/** The bind request body (spec: Bind request body). */
import * as v from 'valibot'
import { CodeSchema, PlatformUserIdSchema, PlatformUsernameSchema, optionalField } from './fields.js'

/** `{code, platform_username, platform_user_id?}`; unknown fields are ignored. */
export const BindRequestSchema = v.object(
  {
    code: CodeSchema,
    platform_username: PlatformUsernameSchema,
    platform_user_id: optionalField(PlatformUserIdSchema),
  },
  'must be a JSON object',
)

/** A valid bind request. */
export type BindRequest = v.InferOutput<typeof BindRequestSchema>
