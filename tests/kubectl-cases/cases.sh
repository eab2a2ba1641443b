# The cases, sourced by run.sh. `c NAME EXPECT ARGS...` runs `kubectl ARGS`;
# `ci NAME EXPECT STDIN ARGS...` feeds STDIN to it.

area basics
c "get namespaces" 'ok~default' get namespaces
c "get ns -o name" 'ok~namespace/kube-system' get ns -o name
c "create configmap" ok create configmap cm1 --from-literal=a=b
c "get configmap -o jsonpath" 'ok~^b$' get cm cm1 -o 'jsonpath={.data.a}'
c "label configmap" ok label cm cm1 tier=web
c "annotate configmap" ok annotate cm cm1 note=x
c "get -l selector" 'ok~cm1' get cm -l tier=web
c "get -l notin" ok get cm -l 'tier notin (web)' -o name
c "patch merge" ok patch cm cm1 --type=merge -p '{"data":{"c":"d"}}'
c "patch json" ok patch cm cm1 --type=json -p '[{"op":"add","path":"/data/e","value":"f"}]'
c "patch strategic" ok patch cm cm1 -p '{"data":{"g":"h"}}'
c "get -o yaml has resourceVersion" 'ok~resourceVersion' get cm cm1 -o yaml
c "delete configmap" ok delete cm cm1
c "get deleted is NotFound" 'fail~NotFound|not found' get cm cm1
c "create namespace" ok create namespace team
c "create in missing namespace" 'fail~not found' create configmap x -n nowhere
c "dry-run=server create" ok create configmap dry --from-literal=a=b --dry-run=server
c "dry-run object not stored" 'fail~not found' get cm dry
c "api-resources" 'ok~configmaps' api-resources
c "api-versions lists admissionregistration" 'ok~admissionregistration.k8s.io/v1' api-versions
c "explain-free get of all" ok get all

area ssa
ci "client-side apply creates" ok '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"mig","labels":{"app":"a"},"annotations":{"note":"n"}},"data":{"x":"1","y":"2"}}' apply -f -
c "csa manager recorded" 'ok~kubectl-client-side-apply' get cm mig -o jsonpath='{.metadata.managedFields[*].manager}' --show-managed-fields
ci "ssa by a new manager" ok '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"mig"},"data":{"z":"3"}}' apply --server-side --field-manager=other -f -
c "ssa new manager added z" 'ok~^3$' get cm mig -o 'jsonpath={.data.z}'
c "kubectl migrated csa fields to the new manager (kubernetes#112905)" 'ok~^other$' get cm mig -o jsonpath='{.metadata.managedFields[*].manager}' --show-managed-fields
c "its re-apply dropped what it no longer applies, as upstream" 'ok~^$' get cm mig -o 'jsonpath={.data.x}'
ci "csa again" ok '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"mig","labels":{"app":"a"},"annotations":{"note":"n"}},"data":{"x":"1","y":"2"}}' apply -f -
c "csa manager owns what it wrote" 'ok~kubectl-client-side-apply' get cm mig -o jsonpath='{.metadata.managedFields[*].manager}' --show-managed-fields
ci "ssa by kubectl migrates csa" ok '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"mig","labels":{"app":"a"},"annotations":{"note":"n"}},"data":{"x":"1","y":"2"}}' apply --server-side -f -
c "after migration csa manager gone" 'ok~^(other )?kubectl( other)?$|kubectl' get cm mig -o jsonpath='{.metadata.managedFields[*].manager}' --show-managed-fields
ci "ssa conflict without force" 'fail~[Cc]onflict' '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"mig"},"data":{"z":"4"}}' apply --server-side -f -
ci "ssa conflict with force" ok '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"mig","labels":{"app":"a"}},"data":{"x":"1","z":"4"}}' apply --server-side --force-conflicts -f -
c "forced value applied" 'ok~^4$' get cm mig -o 'jsonpath={.data.z}'
ci "ssa of a manager that never applied" ok '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"mig"},"data":{"w":"5"}}' apply --server-side --field-manager=fresh -f -
c "other managers' data survive" 'ok~^1$' get cm mig -o 'jsonpath={.data.x}'

area protobuf
c "create deployment" ok create deployment web --image=nginx
c "create role" ok create role r1 --verb=get --resource=configmaps
c "create rolebinding" ok create rolebinding rb1 --role=r1 --user=alice
c "create clusterrole" ok create clusterrole cr1 --verb=get,list --resource=pods
c "create clusterrolebinding" ok create clusterrolebinding crb1 --clusterrole=cr1 --user=alice
c "create priorityclass" ok create priorityclass high --value=1000
c "create secret generic" ok create secret generic s1 --from-literal=a=b
c "create secret docker-registry" ok create secret docker-registry dr --docker-username=u --docker-password=p --docker-server=r.example
c "create serviceaccount" ok create serviceaccount bot
c "create token" 'ok~^ey' create token bot
c "create configmap from-file" ok create configmap fromfile --from-literal=k=v
c "auth can-i" 'ok~yes' auth can-i get pods
c "auth whoami" 'ok~kubernetes-admin' auth whoami
ci "auth reconcile" ok '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"recon"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]}' auth reconcile -f -
c "reconciled role exists" ok get clusterrole recon
c "rolebinding subject stored" 'ok~alice' get rolebinding rb1 -o 'jsonpath={.subjects[0].name}'
c "priorityclass value stored" 'ok~^1000$' get priorityclass high -o 'jsonpath={.value}'

area defaults
ci "deployment web written as JSON (kubectl create sends protobuf)" ok '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"}},"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx"}]}}}}' apply -f -
c "deployment strategy defaulted" 'ok~RollingUpdate' get deploy web -o 'jsonpath={.spec.strategy.type}'
c "deployment maxSurge defaulted" 'ok~25%' get deploy web -o 'jsonpath={.spec.strategy.rollingUpdate.maxSurge}'
c "deployment revisionHistoryLimit defaulted" 'ok~^10$' get deploy web -o 'jsonpath={.spec.revisionHistoryLimit}'
c "deployment progressDeadlineSeconds defaulted" 'ok~^600$' get deploy web -o 'jsonpath={.spec.progressDeadlineSeconds}'
c "deployment replicas defaulted" 'ok~^1$' get deploy web -o 'jsonpath={.spec.replicas}'
c "container imagePullPolicy defaulted" 'ok~Always' get deploy web -o 'jsonpath={.spec.template.spec.containers[0].imagePullPolicy}'
c "container terminationMessagePath defaulted" 'ok~/dev/termination-log' get deploy web -o 'jsonpath={.spec.template.spec.containers[0].terminationMessagePath}'
c "pod restartPolicy defaulted" 'ok~Always' get deploy web -o 'jsonpath={.spec.template.spec.restartPolicy}'
c "pod dnsPolicy defaulted" 'ok~ClusterFirst' get deploy web -o 'jsonpath={.spec.template.spec.dnsPolicy}'
c "pod schedulerName defaulted" 'ok~default-scheduler' get deploy web -o 'jsonpath={.spec.template.spec.schedulerName}'
c "pod terminationGracePeriodSeconds defaulted" 'ok~^30$' get deploy web -o 'jsonpath={.spec.template.spec.terminationGracePeriodSeconds}'
ci "deployment with port" ok '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"ported"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"nginx:1.2","ports":[{"containerPort":80}],"readinessProbe":{"httpGet":{"path":"/","port":80}}}]}}}}' apply -f -
c "port protocol defaulted" 'ok~TCP' get deploy ported -o 'jsonpath={.spec.template.spec.containers[0].ports[0].protocol}'
c "tagged image pull policy IfNotPresent" 'ok~IfNotPresent' get deploy ported -o 'jsonpath={.spec.template.spec.containers[0].imagePullPolicy}'
c "probe timeoutSeconds defaulted" 'ok~^1$' get deploy ported -o 'jsonpath={.spec.template.spec.containers[0].readinessProbe.timeoutSeconds}'
c "probe periodSeconds defaulted" 'ok~^10$' get deploy ported -o 'jsonpath={.spec.template.spec.containers[0].readinessProbe.periodSeconds}'
c "probe httpGet scheme defaulted" 'ok~HTTP' get deploy ported -o 'jsonpath={.spec.template.spec.containers[0].readinessProbe.httpGet.scheme}'
c "secret type defaulted" 'ok~Opaque' get secret s1 -o 'jsonpath={.type}'
ci "secret stringData merged" ok '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"sd"},"stringData":{"pw":"hunter2"}}' apply -f -
c "stringData became data" 'ok~aHVudGVyMg==' get secret sd -o 'jsonpath={.data.pw}'
c "stringData not stored" 'ok~^$' get secret sd -o 'jsonpath={.stringData}'

area validation
ci "selector must match template labels" 'fail~selector|match' '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"bad1"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"c"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}' apply -f -
ci "containers required" 'fail~containers|Required' '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"bad2"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[]}}}}' apply -f -
ci "container image required" 'fail~image' '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"bad3"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c"}]}}}}' apply -f -
ci "negative replicas invalid" 'fail~replicas' '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"bad4"},"spec":{"replicas":-1,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}' apply -f -
c "deployment selector immutable" 'fail~immutable' patch deploy web --type=merge -p '{"spec":{"selector":{"matchLabels":{"app":"other"}},"template":{"metadata":{"labels":{"app":"other"}}}}}'
ci "immutable configmap" ok '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"frozen"},"data":{"a":"b"},"immutable":true}' apply -f -
c "immutable configmap data cannot change" 'fail~immutable' patch cm frozen --type=merge -p '{"data":{"a":"c"}}'
c "immutable cannot be unset" 'fail~immutable' patch cm frozen --type=merge -p '{"immutable":false}'
ci "immutable secret" ok '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"frozen"},"data":{"a":"Yg=="},"immutable":true}' apply -f -
c "immutable secret data cannot change" 'fail~immutable' patch secret frozen --type=merge -p '{"data":{"a":"Yw=="}}'
ci "tls secret needs keys" 'fail~tls.crt|tls.key' '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"tls1"},"type":"kubernetes.io/tls","data":{"x":"eA=="}}' apply -f -
c "secret type immutable" 'fail~immutable|type' patch secret s1 --type=merge -p '{"type":"kubernetes.io/tls"}'
ci "csr request must be PEM" 'fail~request|PEM|pem' '{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"csr-bad"},"spec":{"request":"bm90IHBlbQ==","signerName":"kubernetes.io/kube-apiserver-client","usages":["client auth"]}}' apply -f -
ci "unknown field rejected by strict validation" 'fail~unknown field' '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"strict"},"data":{"a":"b"},"bogus":1}' create -f -
ci "unknown field ignored with validate=false" ok '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"lax"},"data":{"a":"b"},"bogus":1}' create --validate=false -f -
ci "unknown nested field rejected" 'fail~unknown field' '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"strict2"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i","bogus":1}]}}}}' create -f -
c "bad name rejected" 'fail~RFC 1123|invalid' create configmap Bad_Name
c "bad label value rejected" 'fail~label|invalid|Invalid' label ns team 'x=bad value'
c "delete default namespace forbidden" 'fail~may not be deleted' delete ns default --wait=false
c "delete kube-system forbidden" 'fail~may not be deleted' delete ns kube-system --wait=false
ci "role with bad verb list accepted like upstream" ok '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"r2"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]}' apply -f -
ci "rolebinding roleRef immutable" ok '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"rb2"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r1"},"subjects":[{"kind":"User","name":"bob"}]}' apply -f -
c "rolebinding roleRef change refused" 'fail~immutable|roleRef' patch rolebinding rb2 --type=merge -p '{"roleRef":{"name":"r2"}}'
ci "priorityclass value immutable" ok '{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"pc2"},"value":5}' apply -f -
c "priorityclass value change refused" 'fail~immutable|value' patch priorityclass pc2 --type=merge -p '{"value":6}'

area gc
ci "owner configmap" ok '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owner"}}' apply -f -
ci "dependent of a missing owner uid" ok '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"orphaned","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"ghost","uid":"00000000-0000-0000-0000-000000000000"}]}}' create -f -
c "dangling dependent goes away" ok wait --for=delete cm/orphaned --timeout=10s
c "dangling dependent is gone" 'fail~not found' get cm orphaned
c "create ns for foreground" ok create ns fg
c "content in fg" ok create configmap c1 -n fg
c "delete ns foreground finishes" ok delete ns fg --cascade=foreground --timeout=20s
c "fg namespace gone" 'fail~not found' get ns fg
c "create ns for orphan" ok create ns orph
c "delete ns orphan finishes" ok delete ns orph --cascade=orphan --timeout=20s
c "orphan namespace gone" 'fail~not found' get ns orph
c "create ns with finalized content" ok create ns stuck
ci "content with finalizer" ok '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"held","namespace":"stuck","finalizers":["example.test/hold"]}}' apply -f -
c "delete stuck ns" ok delete ns stuck --wait=false
c "terminating ns has conditions" 'ok~NamespaceFinalizersRemaining|NamespaceContentRemaining' get ns stuck -o 'jsonpath={.status.conditions[*].type}'
c "release finalizer" ok patch cm held -n stuck --type=json -p '[{"op":"remove","path":"/metadata/finalizers"}]'
c "stuck ns goes away" ok wait --for=delete ns/stuck --timeout=20s
c "kube-root-ca.crt present" ok get cm kube-root-ca.crt
c "delete kube-root-ca.crt" ok delete cm kube-root-ca.crt
c "kube-root-ca.crt republished" 'ok~kube-root-ca.crt' get cm kube-root-ca.crt -o name
c "foreground deployment delete" ok delete deploy ported --cascade=foreground --timeout=20s

area list-watch
c "create some configmaps" ok create configmap p1
c "more" ok create configmap p2
c "more again" ok create configmap p3
c "limit gives continue token" 'ok~"continue"' get --raw '/api/v1/namespaces/default/configmaps?limit=1'
c "remainingItemCount present" 'ok~remainingItemCount' get --raw '/api/v1/namespaces/default/configmaps?limit=1'
c "resourceVersionMatch without rv rejected" 'fail~resourceVersionMatch' get --raw '/api/v1/configmaps?resourceVersionMatch=NotOlderThan'
c "resourceVersionMatch Exact with rv 0 rejected" 'fail~resourceVersionMatch|Exact' get --raw '/api/v1/configmaps?resourceVersionMatch=Exact&resourceVersion=0'
c "bad limit rejected" 'fail~limit|invalid' get --raw '/api/v1/configmaps?limit=abc'
c "bad continue token rejected" 'fail~continue' get --raw '/api/v1/configmaps?limit=1&continue=garbage'
c "Table for configmaps" 'ok~NAME|DATA' get cm
c "Table for deployments shows READY" 'ok~READY' get deploy
c "Table for namespaces STATUS" 'ok~STATUS' get ns
# kubectl cannot send the Accept header of metadata-only lists; tests/it/apiserver/list.rs covers them.
c "events.k8s.io field selector on regarding" ok get events.events.k8s.io --field-selector regarding.name=p1
ci "create core event" ok '{"apiVersion":"v1","kind":"Event","metadata":{"name":"ev1"},"involvedObject":{"kind":"ConfigMap","name":"p1","namespace":"default"},"reason":"Test","message":"m","type":"Normal"}' create -f -
c "same event under events.k8s.io" ok get events.events.k8s.io ev1
c "watch from rv 1 is 410" 'ok~410|Expired|too old' get --raw '/api/v1/configmaps?watch=true&resourceVersion=1&timeoutSeconds=1'
c "get -w ends on timeout" ok get cm --watch-only --request-timeout=2s
c "label selector on list" 'ok~p1' get cm -l '!nothing' -o name
c "field selector on name" 'ok~p2' get cm --field-selector metadata.name=p2 -o name
c "unknown field selector rejected" 'fail~field label not supported' get cm --field-selector spec.x=y

area crd
ci "crd with pattern and set" ok '{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"things.example.test"},"spec":{"group":"example.test","scope":"Namespaced","names":{"plural":"things","singular":"thing","kind":"Thing"},"versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{},"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas"}},"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"self.min <= self.max","message":"min must not exceed max"}],"properties":{"code":{"type":"string","pattern":"^[a-z]+$"},"tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},"min":{"type":"integer"},"max":{"type":"integer"},"replicas":{"type":"integer"},"name":{"type":"string","x-kubernetes-validations":[{"rule":"self == oldSelf","message":"name is immutable"}]}}},"status":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}}}]}}' apply -f -
c "crd established" ok wait --for=condition=Established crd/things.example.test --timeout=10s
ci "valid thing" ok '{"apiVersion":"example.test/v1","kind":"Thing","metadata":{"name":"t1"},"spec":{"code":"abc","tags":["a","b"],"min":1,"max":2,"replicas":1,"name":"n"}}' apply -f -
ci "pattern enforced" 'fail~pattern|should match' '{"apiVersion":"example.test/v1","kind":"Thing","metadata":{"name":"t2"},"spec":{"code":"ABC","min":1,"max":2}}' apply -f -
ci "set list duplicates rejected" 'fail~[Dd]uplicate' '{"apiVersion":"example.test/v1","kind":"Thing","metadata":{"name":"t3"},"spec":{"tags":["a","a"],"min":1,"max":2}}' apply -f -
ci "cel rule enforced" 'fail~min must not exceed max' '{"apiVersion":"example.test/v1","kind":"Thing","metadata":{"name":"t4"},"spec":{"min":3,"max":2}}' apply -f -
c "cel transition rule enforced" 'fail~name is immutable' patch thing t1 --type=merge -p '{"spec":{"name":"other"}}'
c "scale subresource served" 'ok~1' get --raw '/apis/example.test/v1/namespaces/default/things/t1/scale'
c "kubectl scale thing" ok scale thing t1 --replicas=3
ci "invalid crd bad type" 'fail~type|Unsupported' '{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"bads.example.test"},"spec":{"group":"example.test","scope":"Namespaced","names":{"plural":"bads","singular":"bad","kind":"Bad"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"wobbly"}}}}}]}}' apply -f -
ci "invalid crd uncompilable rule" 'fail~compil|rule|syntax' '{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"bads.example.test"},"spec":{"group":"example.test","scope":"Namespaced","names":{"plural":"bads","singular":"bad","kind":"Bad"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-validations":[{"rule":"self.(("}]}}}]}}' apply -f -
ci "invalid crd non-structural" 'fail~structural|type' '{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"bads.example.test"},"spec":{"group":"example.test","scope":"Namespaced","names":{"plural":"bads","singular":"bad","kind":"Bad"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"properties":{"a":{"type":"string"}}}}}}}]}}' apply -f -
ci "invalid crd rule over the cost budget" 'fail~exceeds budget' '{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"bads.example.test"},"spec":{"group":"example.test","scope":"Namespaced","names":{"plural":"bads","singular":"bad","kind":"Bad"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"},"x-kubernetes-validations":[{"rule":"self.all(t, self.exists(u, t.startsWith(u)))"}]}}}}}]}}' apply -f -
ci "crd rule bounded by maxItems and maxLength" ok '{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"bads.example.test"},"spec":{"group":"example.test","scope":"Namespaced","names":{"plural":"bads","singular":"bad","kind":"Bad"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"tags":{"type":"array","maxItems":20,"items":{"type":"string","maxLength":63},"x-kubernetes-validations":[{"rule":"self.all(t, self.exists(u, t.startsWith(u)))"}]}}}}}]}}' apply -f -
c "crd get thing" 'ok~t1' get things
c "crd strategic patch refused" 'fail~not supported|unknown format|415' patch thing t1 -p '{"spec":{"code":"x"}}' --type=strategic

area admission
ci "vap policy created" ok '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"max-replicas"},"spec":{"failurePolicy":"Fail","matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["deployments"]}]},"validations":[{"expression":"object.spec.replicas <= 5","message":"at most 5 replicas"}]}}' apply -f -
ci "vap binding created" ok '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"max-replicas"},"spec":{"policyName":"max-replicas","validationActions":["Deny"]}}' apply -f -
c "vap allows small scale" ok scale deploy web --replicas=3
c "vap denies big scale" 'fail~at most 5 replicas' patch deploy web --type=merge -p '{"spec":{"replicas":9}}'
c "vap denial names policy and binding" "fail~ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas' denied request" patch deploy web --type=merge -p '{"spec":{"replicas":9}}'
ci "vap warn binding" ok '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"warn-cm"},"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},"validations":[{"expression":"has(object.data)","message":"configmaps should have data"}]}}' apply -f -
ci "vap warn binding bound" ok '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"warn-cm"},"spec":{"policyName":"warn-cm","validationActions":["Warn"]}}' apply -f -
c "warn binding prints a warning" 'ok~Warning: .*configmaps should have data' create configmap empty-one
ci "vap with authorizer" ok '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"approve-flag"},"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":["example.test"],"apiVersions":["*"],"operations":["CREATE","UPDATE"],"resources":["things"]}]},"validations":[{"expression":"!has(object.spec.code) || object.spec.code != \"approved\" || authorizer.group(\"example.test\").resource(\"things\").subresource(\"approve\").name(object.metadata.name).check(\"update\").allowed()","message":"approving needs update on things/approve"}]}}' apply -f -
ci "vap authorizer binding" ok '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"approve-flag"},"spec":{"policyName":"approve-flag","validationActions":["Deny"]}}' apply -f -
c "alice may get and patch things" ok create clusterrole thing-editor --verb=get,patch --resource=things.example.test
c "bound to alice" ok create clusterrolebinding thing-editor --clusterrole=thing-editor --user=alice
c "user without approve denied" 'fail~approving needs update on things/approve' patch thing t1 --type=merge -p '{"spec":{"code":"approved"}}' --as=alice --as-group=system:masters-not
c "admin may approve" ok patch thing t1 --type=merge -p '{"spec":{"code":"approved"}}'
c "vap dry-run server still denied" 'fail~at most 5' patch deploy web --type=merge -p '{"spec":{"replicas":9}}' --dry-run=server
c "delete binding lifts the rule" ok delete validatingadmissionpolicybinding max-replicas
c "big scale allowed after unbinding" ok patch deploy web --type=merge -p '{"spec":{"replicas":9}}'
ci "vap on events.k8s.io events" ok '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"event-notes"},"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":["events.k8s.io"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["events"]}]},"validations":[{"expression":"object.note != \"secret\"","messageExpression":"\"note refused in \" + request.kind.group + \" requested as core: \" + string(request.requestKind.group == \"\")"}]}}' apply -f -
ci "vap on events.k8s.io bound" ok '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"event-notes"},"spec":{"policyName":"event-notes","validationActions":["Deny"]}}' apply -f -
ci "a core event meets the events.k8s.io policy as events.k8s.io" 'fail~note refused in events.k8s.io requested as core: true' '{"apiVersion":"v1","kind":"Event","metadata":{"name":"ev-secret"},"involvedObject":{"kind":"ConfigMap","name":"p1","namespace":"default"},"reason":"Test","message":"secret","type":"Normal"}' create -f -
c "list policies" 'ok~max-replicas' get validatingadmissionpolicies
c "webhook configurations served" ok get validatingwebhookconfigurations
c "mutating webhook configurations served" ok get mutatingwebhookconfigurations

area auth
c "can-i as alice delete pods is no" 'fail~no' auth can-i delete pods --as=alice
c "can-i as alice get configmaps yes" 'ok~yes' auth can-i get configmaps --as=alice
c "impersonated get forbidden" 'fail~forbidden' get secrets --as=alice
c "impersonated get of one allowed (r1 grants get, not list)" ok get cm p1 --as=alice -o name --request-timeout=5s
c "version" 'ok~Server Version' version
c "healthz" 'ok~ok' get --raw /healthz
c "readyz" 'ok~ok' get --raw /readyz
c "openapi v3 root" 'ok~paths' get --raw /openapi/v3
c "discovery aggregated" ok api-resources --api-group=apps
c "cluster-info" 'ok~running' cluster-info
