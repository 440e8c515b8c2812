"""mixedprec.Policy: an autocast policy, written as the JSON policy file that
mp-autocast and mp-precision-report read (docs/Autocast.md, "Policy files")."""

import json

CATEGORIES = ("allow", "deny", "promote", "clear")
COMPUTE_TYPES = ("f16", "bf16")
LEVELS = ("default", "tensor-cores-only")


class Policy:
    """Allow/deny/promote/clear lists of op names ("dialect.op", of any
    dialect), a compute type and a level.

    The lists move ops out of the defaults (PyTorch's lists) unless
    `defaults=False`, in which case only the ops named are categorised. An op
    is in at most one list: adding it to one removes it from the others.

        policy = mixedprec.Policy(compute_type="bf16", deny=["mp.gelu"])
        policy.allow("linalg.matmul").clear("mp.transpose")
        policy.write("policy.json")
    """

    def __init__(self, compute_type=None, level=None, defaults=True,
                 allow=(), deny=(), promote=(), clear=()):
        self.compute_type = compute_type
        self.level = level
        self.defaults = defaults
        self._lists = {category: [] for category in CATEGORIES}
        for category, ops in zip(CATEGORIES, (allow, deny, promote, clear)):
            self.add(category, *ops)
        self._validate()

    def add(self, category, *ops):
        """Moves `ops` to `category` ("allow", "deny", "promote" or
        "clear"); returns the policy."""
        if category not in CATEGORIES:
            raise ValueError("unknown op category %r (expected one of %s)"
                             % (category, ", ".join(CATEGORIES)))
        for op in ops:
            if not isinstance(op, str) or "." not in op.strip(".") or " " in op:
                raise ValueError("%r is not an op name of the form 'dialect.op'" % (op,))
            for ops_of_category in self._lists.values():
                if op in ops_of_category:
                    ops_of_category.remove(op)
            self._lists[category].append(op)
        return self

    def allow(self, *ops):
        """Ops run in the compute type (matmul-likes)."""
        return self.add("allow", *ops)

    def deny(self, *ops):
        """Ops run in f32."""
        return self.add("deny", *ops)

    def promote(self, *ops):
        """Ops run in the widest float type of their inputs."""
        return self.add("promote", *ops)

    def clear(self, *ops):
        """Ops run in the type of their inputs."""
        return self.add("clear", *ops)

    def ops(self, category):
        """The ops of `category`, in the order they were added."""
        return list(self._lists[category])

    def category_of(self, op):
        """The category this policy puts `op` in, or None."""
        for category, ops in self._lists.items():
            if op in ops:
                return category
        return None

    def _validate(self):
        if self.compute_type is not None and self.compute_type not in COMPUTE_TYPES:
            raise ValueError("compute type must be one of %s, got %r"
                             % (", ".join(COMPUTE_TYPES), self.compute_type))
        if self.level is not None and self.level not in LEVELS:
            raise ValueError("level must be one of %s, got %r" % (", ".join(LEVELS), self.level))
        if not isinstance(self.defaults, bool):
            raise ValueError("defaults must be True or False, got %r" % (self.defaults,))

    def to_dict(self):
        """The policy file's JSON object."""
        self._validate()
        result = {}
        if self.compute_type is not None:
            result["compute-type"] = self.compute_type
        if self.level is not None:
            result["level"] = self.level
        result["defaults"] = self.defaults
        for category in CATEGORIES:
            result[category] = list(self._lists[category])
        return result

    def to_json(self):
        return json.dumps(self.to_dict(), indent=2) + "\n"

    def write(self, path):
        """Writes the policy file to `path`; returns `path`."""
        with open(path, "w") as file:
            file.write(self.to_json())
        return path

    @classmethod
    def from_dict(cls, data):
        unknown = set(data) - {"compute-type", "level", "defaults"} - set(CATEGORIES)
        if unknown:
            raise ValueError("unknown policy keys: %s" % ", ".join(sorted(unknown)))
        return cls(compute_type=data.get("compute-type"), level=data.get("level"),
                   defaults=data.get("defaults", True),
                   **{category: data.get(category, ()) for category in CATEGORIES})

    @classmethod
    def load(cls, path):
        """Reads a policy file."""
        with open(path) as file:
            return cls.from_dict(json.load(file))

    def __eq__(self, other):
        return isinstance(other, Policy) and self.to_dict() == other.to_dict()

    def __repr__(self):
        return "Policy(%s)" % ", ".join("%s=%r" % (k.replace("-", "_"), v)
                                         for k, v in self.to_dict().items())
