#!/bin/sh
# HAProxy's health check of a MariaDB Galera node (haproxy/haproxy.cfg, `listen mysql`: option external-check).
#
# HAProxy runs it as: galera-check.sh <proxy_address> <proxy_port> <server_address> <server_port>, and counts exit 0 as
# up. A node is up only when it can take writes that the cluster will keep: it is in the Primary component (not cut
# off with a minority), Synced (not joining, not a donor, not behind), and ready (wsrep_ready). A node that merely
# accepts connections (what `option mysql-check` tests) may be in a non-Primary component and refuse every query.
#
# It logs in as `haproxy_check` without a password: a user with no privileges (USAGE), allowed from the balancer
# only. Status variables need no privileges. Create it once on any node (it is replicated):
#   CREATE USER 'haproxy_check'@'<balancer address>';
set -u
status=$(mysql --no-defaults --protocol=TCP -h "$3" -P "$4" -u haproxy_check --connect-timeout=1 -N -B -e \
  "SELECT CONCAT_WS(',', MAX(IF(VARIABLE_NAME = 'WSREP_CLUSTER_STATUS', VARIABLE_VALUE, NULL)), MAX(IF(VARIABLE_NAME = 'WSREP_LOCAL_STATE', VARIABLE_VALUE, NULL)), MAX(IF(VARIABLE_NAME = 'WSREP_READY', VARIABLE_VALUE, NULL))) FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ('WSREP_CLUSTER_STATUS', 'WSREP_LOCAL_STATE', 'WSREP_READY')" 2>/dev/null) || exit 1
[ "$status" = "Primary,4,ON" ]
