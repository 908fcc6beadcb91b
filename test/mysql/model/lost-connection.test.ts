/** Which MySQL failures are a lost connection worth trying again. */
import t from 'tap'
import { isLostConnection } from '../../../src/mysql/model/lost-connection.js'

const coded = (message: string, code: string, extra: object = {}) => Object.assign(new Error(message), { code, ...extra })

t.test('lost connections, however wrapped, and nothing else', async (t) => {
  const cases: Array<[string, unknown, boolean]> = [
    ['closed by the server', coded('Connection lost: The server closed the connection.', 'PROTOCOL_CONNECTION_LOST'), true],
    ['reset', coded('read ECONNRESET', 'ECONNRESET'), true],
    ['wrapped by a migration', new Error('migration 0001-core failed: x', { cause: coded('Connection lost: The server closed the connection.', 'PROTOCOL_CONNECTION_LOST') }), true],
    ['a Galera node still joining', coded('WSREP has not yet prepared node for application use', 'ER_UNKNOWN_COM_ERROR', { errno: 1047 }), true],
    ['a refused login', coded("Access denied for user 'x'@'localhost'", 'ER_ACCESS_DENIED_ERROR', { errno: 1045 }), false],
    ['nobody listening (the parts wait for that; the CLI names DATABASE_URL at once)', coded('connect ECONNREFUSED 127.0.0.1:3306', 'ECONNREFUSED'), false],
    ['a failing statement', coded("Duplicate column name 'x'", 'ER_DUP_FIELDNAME'), false],
    ['not an error', 'PROTOCOL_CONNECTION_LOST', false],
    ['null', null, false],
  ]
  for (const [name, err, lost] of cases) t.equal(isLostConnection(err), lost, name)
})
