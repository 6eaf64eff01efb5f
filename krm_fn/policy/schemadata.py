# Generated from krm_fn/schemas/coschedulepolicy.schema.json by `python tools/gen_schemadata.py`: do not edit.
"""schemas/coschedulepolicy.schema.json as Python data, which config.py reads: parsing the
JSON would import json (~1 ms of every start). The file's text as it is, after the names
of JSON's literals; `python tools/gen_schemadata.py` writes it again after the schema
changes (a test checks that both agree)."""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

true, false, null = True, False, None

SCHEMA: dict[str, Any] = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "urn:krm-coschedule:schema:coschedulepolicy:v1alpha1",
  "title": "CoschedulePolicy (fn.kpt.dev/v1alpha1), the functionConfig of krm-coschedule",
  "description": "Typed functionConfig of the krm-coschedule KRM function: how Tekton PipelineRuns and TaskRuns are coscheduled (affinity assistants) and which scheduling policy Tekton and Shipwright pods get. Every field is optional. A `default` is the value the function applies when the field is absent; defaults that Kubernetes applies are named in the descriptions only. See docs/policy.md.",
  "type": "object",
  "required": [
    "apiVersion",
    "kind"
  ],
  "properties": {
    "apiVersion": {
      "description": "API version of the typed functionConfig; always fn.kpt.dev/v1alpha1.",
      "const": "fn.kpt.dev/v1alpha1"
    },
    "kind": {
      "description": "Always CoschedulePolicy. (A ConfigMap with Tekton's own keys is the other accepted functionConfig; it is not described by this schema.)",
      "const": "CoschedulePolicy"
    },
    "metadata": {
      "description": "Object metadata. Used only to name the policy in results and, through kpt's path and index annotations, to point them at its file.",
      "type": "object",
      "properties": {
        "name": {
          "description": "Name of the policy (any; shown in results about the policy).",
          "type": "string"
        },
        "namespace": {
          "description": "Namespace of the policy object; only shown in results about the policy.",
          "type": "string"
        },
        "annotations": {
          "description": "Annotations. Set config.kubernetes.io/local-config: \"true\" so kpt live apply does not send the policy to the cluster.",
          "type": "object"
        },
        "labels": {
          "description": "Labels; not used by the function.",
          "type": "object"
        }
      }
    },
    "spec": {
      "description": "The policy. Every field is optional; an empty or missing spec means the defaults.",
      "default": {},
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "coschedule": {
          "description": "Tekton's coschedule feature flag: workspaces = one affinity assistant (placeholder StatefulSet) per PVC-backed workspace; pipelineruns = one assistant per PipelineRun, preferred anti-affinity between runs; isolate-pipelinerun = the same with required anti-affinity (one run per node); disabled = no coscheduling (defaults and scheduling policy still apply). Resolved with disableAffinityAssistant by Tekton's migration table below v1.0.0.",
          "default": "workspaces",
          "enum": [
            "workspaces",
            "pipelineruns",
            "isolate-pipelinerun",
            "disabled"
          ]
        },
        "disableAffinityAssistant": {
          "description": "Tekton's legacy disable-affinity-assistant flag. Honoured only when tektonVersion is below v1.0.0, by Tekton's migration table: true turns coscheduling off, or with v0.51 to v0.70 keeps a per-run coschedule mode; from v0.50 on, false with any coschedule but workspaces is an error. From v1.0.0 it is ignored, with a warning.",
          "default": false,
          "type": "boolean"
        },
        "tektonVersion": {
          "description": "Tekton Pipelines version your cluster runs (X.Y or X.Y.Z, optionally with a leading v). It selects how coschedule and disableAffinityAssistant are resolved (per-run modes below v0.51.0 and coschedule other than workspaces below v0.50.0 are errors), the assistant image when assistant.image is unset, the default of assistant.setSecurityContext (on from v1.16.0) and how the tekton.dev/pipeline label is derived. The releases the function knows and what each changes for the assistant: docs/tekton-releases.md. Default: the newest known release, v1.16.0; a newer version is a warning, and the output follows v1.16.0.",
          "default": "v1.16.0",
          "type": "string",
          "pattern": "^v?[0-9]+\\.[0-9]+(\\.[0-9]+)?$"
        },
        "kubernetesVersion": {
          "description": "Kubernetes version your cluster runs (X.Y or X.Y.Z, optionally with a leading v). The run-keyed strategy needs 1.31 or newer (matchLabelKeys / mismatchLabelKeys in pod affinity, KEP-3633: beta and on by default in 1.31, GA in 1.33); below that, runs without a name cannot be coscheduled and are errors. explain uses it to say where a run may wait for the scheduler's unschedulable-pods flush (docs/strategies.md). Default: 1.37, the newest Kubernetes release.",
          "default": "1.37",
          "type": "string",
          "pattern": "^v?[0-9]+\\.[0-9]+(\\.[0-9]+)?$"
        },
        "shipwrightVersion": {
          "description": "Shipwright Build version your cluster runs (X.Y or X.Y.Z, optionally with a leading v). Below v0.19.0 Build and BuildRun have no runtimeClassName (SHIP-0040), so scheduling.runtimeClassName is not set on them, with a warning. Default: v0.20.0, the newest release the function knows.",
          "default": "v0.20.0",
          "type": "string",
          "pattern": "^v?[0-9]+\\.[0-9]+(\\.[0-9]+)?$"
        },
        "strategy": {
          "description": "How coscheduling is written (SPEC §4b). placeholder: a placeholder StatefulSet per run or per claim, as Tekton's affinity assistant, named from the run name (runs without a name at render time are errors, or skipped with generateName: skip). run-keyed: no placeholder; pod affinity with matchLabelKeys on Tekton's run label, resolved per run by the API server, the volumeClaimTemplate left to Tekton (Kubernetes 1.31+). auto: placeholder for runs with a name, run-keyed for runs that cannot own one (generateName, TriggerTemplate resourcetemplates, Pipelines-as-Code runs).",
          "default": "auto",
          "enum": [
            "auto",
            "placeholder",
            "run-keyed"
          ]
        },
        "isolationScope": {
          "description": "Where the anti-affinity that keeps runs apart (isolate-pipelinerun: required, one run per node; pipelineruns and the placeholders of workspaces mode: preferred, weight 100) looks for other runs: namespace = only in the run's own namespace, cluster = in every namespace (namespaceSelector: {}). One setting for both strategies. Unset: each keeps its own, as before: placeholders copy Tekton's term, which has no namespace selector (namespace; tektoncd/pipeline#9531), run-keyed isolate-pipelinerun repels runs of every namespace (cluster) and run-keyed pipelineruns spreads within the namespace. A re-render with another scope rewrites the terms it wrote.",
          "enum": [
            "namespace",
            "cluster"
          ]
        },
        "assistant": {
          "description": "The generated affinity-assistant StatefulSets (Tekton's config-defaults and feature flags for them).",
          "default": {},
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "image": {
              "description": "Container image of the assistant (Tekton's nop image, the controller's -nop-image flag); the container runs it with args [tekton_run_indefinitely]. Unset: the nop image of tektonVersion's release, ghcr.io/tektoncd/pipeline/github.com/tektoncd/pipeline/cmd/nop:<release>, from a table of Tekton releases in the function (v0.15.0 to v1.16.0, docs/tekton-releases.md; a version between releases or newer takes the newest release before it, and one below v0.15.0, whose Tekton ran no nop image, the newest). Set it to pin a digest or to use a mirror. A set image whose tag is a nop release other than tektonVersion's earns a warning when tektonVersion is set too (only the tag is checked: a digest cannot be checked offline).",
              "default": "ghcr.io/tektoncd/pipeline/github.com/tektoncd/pipeline/cmd/nop:v1.16.0",
              "type": "string",
              "minLength": 1
            },
            "podTemplate": {
              "description": "Tekton's default-affinity-assistant-pod-template. nodeSelector, tolerations, imagePullSecrets, securityContext and priorityClassName apply only when the run's own pod template does not set that field (the assistant must be placeable where the TaskRun pods are); serviceAccountName wins over the run's.",
              "default": {},
              "type": "object",
              "additionalProperties": false,
              "properties": {
                "nodeSelector": {
                  "description": "Node labels the assistant pod requires, used when the run's pod template sets no nodeSelector.",
                  "type": "object",
                  "additionalProperties": {
                    "type": "string"
                  }
                },
                "tolerations": {
                  "description": "Tolerations of the assistant pod, used when the run's pod template sets none.",
                  "type": "array",
                  "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                      "key": {
                        "description": "Taint key the toleration matches; empty with operator Exists matches every taint.",
                        "type": "string"
                      },
                      "operator": {
                        "description": "Exists or Equal (Kubernetes treats an empty operator as Equal).",
                        "type": "string",
                        "enum": [
                          "Exists",
                          "Equal",
                          ""
                        ]
                      },
                      "value": {
                        "description": "Taint value to match with operator Equal; must be empty with Exists.",
                        "type": "string"
                      },
                      "effect": {
                        "description": "Taint effect to match (NoSchedule, PreferNoSchedule, NoExecute); empty matches all effects.",
                        "type": "string",
                        "enum": [
                          "NoSchedule",
                          "PreferNoSchedule",
                          "NoExecute",
                          ""
                        ]
                      },
                      "tolerationSeconds": {
                        "description": "With effect NoExecute: how long the pod stays bound after the taint appears.",
                        "type": "integer"
                      }
                    }
                  }
                },
                "imagePullSecrets": {
                  "description": "Secrets to pull the assistant image, used when the run's pod template sets none.",
                  "type": "array",
                  "items": {
                    "type": "object",
                    "properties": {
                      "name": {
                        "description": "Name of a Secret of type kubernetes.io/dockerconfigjson in the run's namespace.",
                        "type": "string"
                      }
                    },
                    "required": [
                      "name"
                    ],
                    "additionalProperties": false
                  }
                },
                "securityContext": {
                  "description": "Pod-level securityContext of the assistant (a Kubernetes PodSecurityContext), used when the run's pod template sets none.",
                  "type": "object"
                },
                "priorityClassName": {
                  "description": "PriorityClass of the assistant pod, used when the run's pod template sets none.",
                  "type": "string"
                },
                "serviceAccountName": {
                  "description": "ServiceAccount of the assistant pod; wins over the run's own (Tekton v1.9+, PR #9253). Empty: the run's service account, else spec.defaultServiceAccount.",
                  "type": "string"
                }
              }
            },
            "resources": {
              "description": "Requests and limits of the assistant container, beyond Tekton: Tekton's assistant has fixed requests = limits = 50m CPU / 100Mi memory (the default), and a resources field for its template is proposed (tektoncd/pipeline#9287, PR #10325, open). Checked as the API server checks a container's: quantities, resource names (cpu, memory, ephemeral-storage, hugepages-<size>, or a domain-qualified extended resource), a request not above its limit. Set, it replaces the whole fixed value: a limit left out is no limit (QoS Burstable). A declared departure from Tekton until its field ships (docs/guarantees.md).",
              "type": "object",
              "additionalProperties": false,
              "properties": {
                "requests": {
                  "description": "Resources the scheduler reserves for the placeholder pod on its node (what it holds while its manifest is in Git).",
                  "type": "object",
                  "additionalProperties": {
                    "description": "A resource quantity (e.g. 100m, 0.5, 128Mi, 1Gi).",
                    "type": [
                      "string",
                      "number"
                    ]
                  }
                },
                "limits": {
                  "description": "Most the placeholder container may use; a limit without a request is also its request.",
                  "type": "object",
                  "additionalProperties": {
                    "description": "A resource quantity (e.g. 100m, 0.5, 128Mi, 1Gi).",
                    "type": [
                      "string",
                      "number"
                    ]
                  }
                }
              }
            },
            "setSecurityContext": {
              "description": "Tekton's set-security-context: true gives the assistant container allowPrivilegeEscalation false, capabilities.drop [ALL], runAsNonRoot and seccompProfile RuntimeDefault (only runAsNonRoot on Windows nodes), the restricted Pod Security profile's container fields; false leaves its securityContext empty. Default: Tekton's default for tektonVersion: false below v1.16.0, true from v1.16.0 (tektoncd/pipeline#9589), so true for the default tektonVersion.",
              "default": true,
              "type": "boolean"
            },
            "setSecurityContextReadOnlyRootFilesystem": {
              "description": "Tekton's set-security-context-read-only-root-filesystem: with setSecurityContext, also sets readOnlyRootFilesystem: true on the assistant container.",
              "default": false,
              "type": "boolean"
            },
            "pvcRetentionPolicy": {
              "description": "persistentVolumeClaimRetentionPolicy of the assistant StatefulSet: what happens to the claims it created. Tekton leaves Kubernetes' Retain/Retain, which leaks the PVCs of a deleted run (Tekton #7618); this function defaults to Delete/Delete.",
              "default": {
                "whenDeleted": "Delete",
                "whenScaled": "Delete"
              },
              "type": "object",
              "additionalProperties": false,
              "properties": {
                "whenDeleted": {
                  "description": "Delete: deleting the StatefulSet deletes its PVCs; Retain: they stay.",
                  "default": "Delete",
                  "enum": [
                    "Delete",
                    "Retain"
                  ]
                },
                "whenScaled": {
                  "description": "Delete or Retain the PVCs of replicas removed by a scale-down.",
                  "default": "Delete",
                  "enum": [
                    "Delete",
                    "Retain"
                  ]
                }
              }
            },
            "topologySpreadConstraints": {
              "description": "topologySpreadConstraints (KEP-895) for the assistant pods, beyond Tekton. A constraint without labelSelector spreads the assistants themselves (app.kubernetes.io/component: affinity-assistant).",
              "default": [],
              "type": "array",
              "items": {
                "type": "object",
                "required": [
                  "maxSkew",
                  "topologyKey",
                  "whenUnsatisfiable"
                ],
                "additionalProperties": false,
                "properties": {
                  "maxSkew": {
                    "description": "Largest allowed difference in the number of matching pods between topology domains.",
                    "type": "integer",
                    "minimum": 1
                  },
                  "topologyKey": {
                    "description": "Node label whose values define the topology domains, e.g. kubernetes.io/hostname or topology.kubernetes.io/zone.",
                    "type": "string",
                    "minLength": 1
                  },
                  "whenUnsatisfiable": {
                    "description": "DoNotSchedule: keep the pod Pending rather than exceed maxSkew; ScheduleAnyway: only prefer less skew.",
                    "enum": [
                      "DoNotSchedule",
                      "ScheduleAnyway"
                    ]
                  },
                  "labelSelector": {
                    "description": "Pods counted for the spread. Set by the function when absent: the assistants (app.kubernetes.io/component: affinity-assistant).",
                    "default": {
                      "matchLabels": {
                        "app.kubernetes.io/component": "affinity-assistant"
                      }
                    },
                    "type": "object",
                    "properties": {
                      "matchLabels": {
                        "description": "Labels a counted pod must all carry.",
                        "type": "object",
                        "additionalProperties": {
                          "type": "string"
                        }
                      },
                      "matchExpressions": {
                        "description": "Label requirements a counted pod must all meet.",
                        "type": "array",
                        "items": {
                          "type": "object",
                          "required": [
                            "key",
                            "operator"
                          ],
                          "properties": {
                            "key": {
                              "description": "Label key the requirement applies to.",
                              "type": "string"
                            },
                            "operator": {
                              "description": "In, NotIn, Exists or DoesNotExist.",
                              "enum": [
                                "In",
                                "NotIn",
                                "Exists",
                                "DoesNotExist"
                              ]
                            },
                            "values": {
                              "description": "Label values for In and NotIn; empty for Exists and DoesNotExist.",
                              "type": "array",
                              "items": {
                                "type": "string"
                              }
                            }
                          },
                          "additionalProperties": false
                        }
                      }
                    },
                    "additionalProperties": false
                  },
                  "minDomains": {
                    "description": "Minimum number of eligible domains (only with whenUnsatisfiable: DoNotSchedule); passed to Kubernetes as written.",
                    "type": "integer",
                    "minimum": 1
                  },
                  "nodeAffinityPolicy": {
                    "description": "Honor or Ignore the pod's nodeSelector and node affinity when counting domains (Kubernetes' default: Honor); passed as written.",
                    "enum": [
                      "Honor",
                      "Ignore"
                    ]
                  },
                  "nodeTaintsPolicy": {
                    "description": "Honor or Ignore node taints when counting domains (Kubernetes' default: Ignore); passed as written.",
                    "enum": [
                      "Honor",
                      "Ignore"
                    ]
                  },
                  "matchLabelKeys": {
                    "description": "Pod label keys whose values are added to labelSelector per pod (KEP-3243); passed as written.",
                    "type": "array",
                    "items": {
                      "type": "string"
                    }
                  }
                }
              }
            },
            "schedulingGates": {
              "description": "schedulingGates (KEP-3521, KEP-3838) on the assistant pods, beyond Tekton: the placeholders stay unscheduled until a queue controller removes the gates. TaskRun pods pinned to an assistant stay Pending until it is scheduled.",
              "default": [],
              "type": "array",
              "items": {
                "type": "object",
                "required": [
                  "name"
                ],
                "additionalProperties": false,
                "properties": {
                  "name": {
                    "description": "Gate name (a qualified name, e.g. example.com/queue); the controller that removes it must know it.",
                    "type": "string",
                    "pattern": "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"
                  }
                }
              }
            }
          }
        },
        "defaultPodTemplate": {
          "description": "Tekton's default-pod-template: each top-level field the run's pod template leaves unset is taken whole from here, before the scheduling policy and the assistant are applied. Fields the run sets are never changed.",
          "default": {},
          "type": "object"
        },
        "defaultServiceAccount": {
          "description": "Tekton's default-service-account (config-defaults): the service account Tekton gives a run that names none, and so the one the assistant runs as when neither assistant.podTemplate.serviceAccountName nor the run's own service account (v1 spec.taskRunTemplate.serviceAccountName, v1beta1 and TaskRun spec.serviceAccountName) is set, as Tekton v1.9.0+ does (PR #9253). Empty: no serviceAccountName, so Kubernetes uses the namespace's default account. The run itself is not changed (Tekton's admission defaulting sets its service account).",
          "default": "default",
          "type": "string"
        },
        "scheduling": {
          "description": "Constrain-only scheduling policy for every TaskRun pod template (run level, and each taskRunSpecs template that sets the field) and every Shipwright Build and BuildRun: values are added, never relaxed. Checked with Shipwright's validation rules and the hardening rules.",
          "default": {},
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "nodeSelector": {
              "description": "Node labels to require: a missing key is added; the same key with another value is a conflict (see onConflict). Keys and values must be valid label keys and values (NodeSelectorNotValid).",
              "default": {},
              "type": "object",
              "additionalProperties": {
                "type": "string"
              }
            },
            "tolerations": {
              "description": "Tolerations to add where they are missing. Tekton: the same toleration is one with equal key, operator, value and effect. Shipwright merges by key, so a same-key toleration with other fields is a conflict (see onConflict).",
              "default": [],
              "type": "array",
              "items": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                  "key": {
                    "description": "Taint key the toleration matches; a qualified name, not empty (Shipwright's rules: TolerationNotValid otherwise).",
                    "type": "string"
                  },
                  "operator": {
                    "description": "Exists or Equal. Required here: the policy is checked with Shipwright's rules (TolerationNotValid otherwise).",
                    "type": "string",
                    "enum": [
                      "Exists",
                      "Equal"
                    ]
                  },
                  "value": {
                    "description": "Taint value to match with operator Equal (a label value); must be empty with Exists.",
                    "type": "string"
                  },
                  "effect": {
                    "description": "Only NoSchedule or empty: Shipwright supports no other effect (build pods get NoSchedule either way).",
                    "type": "string",
                    "enum": [
                      "NoSchedule",
                      ""
                    ]
                  },
                  "tolerationSeconds": {
                    "description": "Not supported: Shipwright rejects it (\"Specifying TolerationSeconds is not supported\"), so setting it is an error.",
                    "type": "integer"
                  }
                }
              }
            },
            "schedulerName": {
              "description": "Scheduler for the pods: set where absent; a different existing value is a conflict (see onConflict). Empty: no scheduler is set.",
              "default": "",
              "type": "string"
            },
            "runtimeClassName": {
              "description": "RuntimeClass of every TaskRun pod and build pod (e.g. kata for builds): Tekton's pod template runtimeClassName, and Shipwright's Build and BuildRun runtimeClassName (Shipwright v0.19+, SHIP-0040; an older Shipwright's CRD drops the field). Set when a manifest leaves it unset; another value is a conflict handled by onConflict, like schedulerName. Must be a DNS-1123 subdomain (Shipwright's RuntimeClassNameNotValid). The placeholders keep the default runtime (Tekton copies no runtimeClassName into its assistant).",
              "type": "string"
            },
            "onConflict": {
              "description": "When a manifest already sets a value the policy would change: error = an error result, nothing changes; keep = keep the manifest's value, with a warning; override = write the policy's value, with a warning.",
              "default": "error",
              "enum": [
                "error",
                "keep",
                "override"
              ]
            }
          }
        },
        "hardening": {
          "description": "SHIP-0039's hardening guideline, enforced at render time on Shipwright objects, Tekton pod templates and this policy's own scheduling values: tolerating node.kubernetes.io/* or control-plane/master taints, an empty-key Exists toleration, and selecting the control-plane node-role label.",
          "default": {},
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "action": {
              "description": "deny = each finding is an error; warn = a warning; off = not checked.",
              "default": "deny",
              "enum": [
                "deny",
                "warn",
                "off"
              ]
            },
            "allowTolerationKeys": {
              "description": "Toleration keys that are allowed anyway (exact, or a prefix ending in *; \"\" allows the empty-key Exists toleration). The escape hatch for single-node clusters, which must schedule on the control plane.",
              "default": [],
              "type": "array",
              "items": {
                "type": "string"
              }
            },
            "allowNodeSelectorKeys": {
              "description": "nodeSelector keys that are allowed anyway (exact, or a prefix ending in *), e.g. node-role.kubernetes.io/control-plane on a single-node cluster.",
              "default": [],
              "type": "array",
              "items": {
                "type": "string"
              }
            }
          }
        },
        "generateName": {
          "description": "What to do with a run that has generateName and no name when the strategy is placeholder (its placeholder name is computed from the run name, unknown at render time): error = an error result; skip = leave the run uncoscheduled, with a warning. Under strategy auto such a run is run-keyed instead.",
          "default": "error",
          "enum": [
            "error",
            "skip"
          ]
        }
      }
    }
  }
}

del true, false, null
