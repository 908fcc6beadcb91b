/** The error line of a command whose storage failed names DATABASE_URL or REDIS_URL; other errors pass unchanged. */
import t from 'tap'
import { commandErrorLine } from '../../../src/cli/model/connection-error.js'

const coded = (message: string, code: string) => Object.assign(new Error(message), { code })

t.test('storage failures name their variable, once', async (t) => {
  const cases: Array<[string, unknown, string]> = [
    ['MySQL refused at open', coded('cannot open MySQL at 127.0.0.1:3307: connect ECONNREFUSED 127.0.0.1:3307', 'ECONNREFUSED'), 'error: cannot open MySQL at 127.0.0.1:3307: connect ECONNREFUSED 127.0.0.1:3307; check DATABASE_URL'],
    ['a wrong password', coded("cannot open MySQL at db:3306: Access denied for user 'pl'@'10.0.0.2' (using password: YES)", 'ER_ACCESS_DENIED_ERROR'), "error: cannot open MySQL at db:3306: Access denied for user 'pl'@'10.0.0.2' (using password: YES); check DATABASE_URL"],
    ['MySQL lost mid-command', coded('Connection lost: The server closed the connection.', 'PROTOCOL_CONNECTION_LOST'), 'error: cannot reach MySQL (Connection lost: The server closed the connection.); check DATABASE_URL'],
    ['a DNS failure on a later query', coded('getaddrinfo ENOTFOUND db.invalid', 'ENOTFOUND'), 'error: cannot reach MySQL (getaddrinfo ENOTFOUND db.invalid); check DATABASE_URL'],
    ['Redis names its own variable already', new Error('cannot reach Redis at 127.0.0.1:1 (ECONNREFUSED); check REDIS_URL'), 'error: cannot reach Redis at 127.0.0.1:1 (ECONNREFUSED); check REDIS_URL'],
    ['a query the server refused is not a connection failure', coded("Duplicate entry 'x' for key 'name'", 'ER_DUP_ENTRY'), "error: Duplicate entry 'x' for key 'name'"],
    ['any other error', new Error('no such key: demo'), 'error: no such key: demo'],
    ['not an Error', 'plain', 'error: plain'],
  ]
  for (const [name, err, line] of cases) t.equal(commandErrorLine(err), line, name)
})
