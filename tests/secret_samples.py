"""Real-shaped secrets of every kind the detector knows, and traps that look
like secrets but are not (hashes, UUIDs, base64 images and blobs, npm
integrity hashes, placeholders, code).

The secrets are generated at run time from a fixed seed: random, never a
real key, and no key-shaped literal is committed (a host's secret scanning
would rightly flag one)."""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid

_rng = random.Random(16)
_ALNUM = string.ascii_letters + string.digits
_UPPER = string.ascii_uppercase + string.digits
_LOWER = string.ascii_lowercase + string.digits


def _r(n: int, chars: str = _ALNUM) -> str:
    return "".join(_rng.choice(chars) for _ in range(n))


def _b64url(value: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


def _pem(name: str, lines: int = 12) -> str:
    body = "\n".join(_r(64, _ALNUM + "+/") for _ in range(lines))
    return f"-----BEGIN {name}-----\n{body}\n{_r(30, _ALNUM + '+/')}==\n-----END {name}-----"


#: (kind, the secret, a text holding it where an agent meets it); the secret occurs once in the text
def planted(seed: int) -> list[tuple[str, str, str]]:
    """A secret of every form the detector knows, several of most, drawn from ``seed``."""
    global _rng
    _rng = random.Random(seed)
    out: list[tuple[str, str, str]] = []

    def _plant(kind: str, secret: str, text: str = "{}") -> None:
        out.append((kind, secret, text.format(secret)))

    _plant("anthropic-key", "sk-ant-api03-" + _r(93, _ALNUM + "-_") + "AA", "export ANTHROPIC_API_KEY={}")
    _plant("anthropic-key", "sk-ant-admin01-" + _r(93, _ALNUM + "-_") + "AA", "the admin key is {}, rotate it")
    _plant("openai-key", "sk-proj-" + _r(74, _ALNUM + "-_") + "T3BlbkFJ" + _r(74, _ALNUM + "-_"), 'api_key="{}"')
    _plant("openai-key", "sk-" + _r(20) + "T3BlbkFJ" + _r(20), "OPENAI_API_KEY={}")
    _plant("openai-key", "sk-svcacct-" + _r(40, _ALNUM + "-_"), "key: {}")
    _plant("openai-key", "sk-" + _r(48), "curl -H 'Authorization: Bearer {}' https://api.openai.com/v1/models")
    _plant("github-token", "ghp_" + _r(36), "git clone https://x-access-token:{}@github.com/o/r")
    _plant("github-token", "gho_" + _r(36), "oauth_token: {}")
    _plant("github-token", "github_pat_" + _r(22) + "_" + _r(59), "GH_TOKEN={}")
    _plant("gitlab-token", "glpat-" + _r(20, _ALNUM + "-_"), "PRIVATE-TOKEN: {}")
    _plant("aws-access-key", "AKIA" + _r(16, _UPPER), "aws_access_key_id = {}")
    _plant("aws-access-key", "ASIA" + _r(16, _UPPER), '"AccessKeyId": "{}",')
    _plant("aws-secret-key", _r(40, _ALNUM + "/+"), "[default]\naws_secret_access_key = {}\n")
    _plant("aws-secret-key", _r(40, _ALNUM + "/+"), '{{"Credentials": {{"SecretAccessKey": "{}"}}}}')
    _plant("aws-secret-key", _r(40, _ALNUM + "/+"), "export AWS_SECRET_ACCESS_KEY={}")
    _plant("slack-token", f"xoxb-{_r(11, string.digits)}-{_r(13, string.digits)}-{_r(24, _LOWER)}", "SLACK_BOT={}")
    _plant(
        "slack-token", f"xoxp-{_r(11, string.digits)}-{_r(11, string.digits)}-{_r(12, string.digits)}-{_r(32, _LOWER)}"
    )
    _plant(
        "slack-webhook",
        f"https://hooks.slack.com/services/T{_r(8, _UPPER)}/B{_r(10, _UPPER)}/{_r(24)}",
        "curl -X POST {} -d @msg.json",
    )
    _plant("google-api-key", "AIza" + _r(35, _ALNUM + "-_"), "https://maps.googleapis.com/maps/api/js?key={}")
    _plant("google-oauth", "GOCSPX-" + _r(28, _ALNUM + "-_"), "client_secret: {}")
    _plant("google-oauth", "ya29." + _r(150, _ALNUM + "-_"), "Authorization: Bearer {}")
    _plant("huggingface-token", "hf_" + _r(34), "huggingface-cli login --token {}")
    _plant("stripe-key", "sk_live_" + _r(24), "Stripe.api_key = '{}'")
    _plant("sendgrid-key", "SG." + _r(22, _ALNUM + "-_") + "." + _r(43, _ALNUM + "-_"), "sg = SendGridAPIClient('{}')")
    _plant("npm-token", "npm_" + _r(36), "//registry.npmjs.org/:_authToken={}")
    _plant("npm-token", str(uuid.UUID(int=_rng.getrandbits(128))), "//registry.npmjs.org/:_authToken={}")
    _plant("pypi-token", "pypi-AgEIcHlwaS5vcmc" + _r(80, _ALNUM + "-_"), "password = {}")
    _plant("square-oauth", "sq0csp-" + _r(43, _ALNUM + "-_"), "SQUARE={}")
    _plant("mailchimp-key", _r(32, "0123456789abcdef") + "-us14", "mailchimp key {} ok")
    _plant(
        "azure-storage-key",
        _r(86, _ALNUM + "+/") + "==",
        "DefaultEndpointsProtocol=https;AccountName=dev;AccountKey={};EndpointSuffix=core.windows.net",
    )
    _plant(
        "jwt",
        _b64url({"alg": "HS256", "typ": "JWT"})
        + "."
        + _b64url({"sub": "42", "exp": 1900000000})
        + "."
        + _r(43, _ALNUM + "-_"),
        "Cookie: session={}; Path=/",
    )
    _plant("url-credentials", _r(16), "DATABASE_URL=postgres://app:{}@db.internal:5432/app")
    _plant("url-credentials", "S3cr3t!" + _r(6), "redis://:{}@cache:6379/0")
    _plant("env-assignment", _r(32), "DB_PASSWORD={}")
    _plant("env-assignment", _r(24), 'SECRET_KEY = "{}"')
    _plant("env-assignment", _r(30), "export SENTRY_AUTH_TOKEN={}")
    _plant("env-assignment", _r(28), "  STRIPE_CLIENT_SECRET: {}")
    _plant("env-assignment", _r(20), '{{"env": {{"REPLICATE_API_KEY": "{}"}}}}')
    _plant("private-key", _pem("RSA PRIVATE KEY"), "$ cat ~/.ssh/id_rsa\n{}\n$ ")
    _plant("private-key", _pem("OPENSSH PRIVATE KEY"), "{}")
    _plant("private-key", _pem("PRIVATE KEY", 20), 'key = """{}"""')
    _plant("private-key", _pem("EC PRIVATE KEY", 3), "{}")
    _plant("private-key", _pem("ENCRYPTED PRIVATE KEY", 8), "{}")
    _plant("private-key", _pem("PGP PRIVATE KEY BLOCK", 8), "gpg --export-secret-keys -a:\n{}")

    def _openssh_key() -> str:
        """A key as ssh-keygen writes it by default: OpenSSH's own format, whose
        body holds long runs of ``A`` (its length fields)."""
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ed25519

        key = ed25519.Ed25519PrivateKey.from_private_bytes(_rng.randbytes(32))
        return (
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()
            )
            .decode()
            .strip()
        )

    _plant("private-key", _openssh_key(), "$ cat ~/.ssh/id_ed25519\n{}\n")
    # a .env written by a tool whose arguments are a JSON string: its lines are ``\n``-escaped there
    for _secret, _text in (
        (_r(32), "cat > .env <<EOF\nDB_PASSWORD={}\nEOF"),
        (_r(28), "PORT=8080\nSTRIPE_SECRET={}\n"),
    ):
        out.append(("env-assignment", _secret, json.dumps({"command": _text.format(_secret)})))
    _plant("bearer-token", _r(40, _ALNUM + "-._~"), "curl -H 'Authorization: Bearer {}' https://api.internal/v1")
    _plant("bearer-token", _r(32), '{{"headers": {{"authorization": "Token {}"}}}}')
    _plant("bearer-token", base64.b64encode(("deploy:" + _r(20)).encode()).decode(), "Authorization: Basic {}")
    _plant("twilio-key", "AC" + _r(32, "0123456789abcdef"), "TWILIO_ACCOUNT_SID={}")
    _plant("twilio-key", "SK" + _r(32, "0123456789abcdef"), "client = Client('{}', secret)")
    _plant("azure-client-secret", _r(3) + "8Q~" + _r(34, _ALNUM + "_~.-"), "AZURE_CLIENT_SECRET value is {} here")
    _plant("azure-client-secret", _r(3) + "7Q~" + _r(31, _ALNUM + "_.-"), 'clientSecret: "{}"')
    _plant("password-assignment", _r(18), 'db.connect(host="db", password="{}")')
    _plant("password-assignment", _r(14), "passwd: {}")
    _plant("password-assignment", _r(22), "client_secret={}&grant_type=client_credentials")
    _plant("password-assignment", _r(16), "  Password = '{}';")
    _plant(
        "base64-secret",
        base64.b64encode(f"OPENAI_API_KEY=sk-proj-{_r(60)}\nDB_PASSWORD={_r(20)}\n".encode()).decode(),
        "echo {} | base64 -d > .env",
    )
    _plant(
        "base64-secret",
        base64.b64encode(f"API_KEY={_r(32)}\n".encode()).decode(),
        "data:\n  env: {}\n",
    )
    # what escaped it before: a bare 40-character secret after ``user:``, a long key, a short key block
    _plant("user-password", _aws40(), "curl -sS -u admin:{} https://api.internal/v1/builds")
    _plant("user-password", _aws40(), "-H 'Authorization: deploy:{}'")
    _plant("user-password", _aws40(), "UPSTREAM_BASIC=ci-bot:{}\n")
    _plant("stripe-key", "sk_live_" + _r(99), "STRIPE={}")
    _plant("private-key", _pem("RSA PRIVATE KEY", 0), "{}")
    _plant("private-key", _pem("OPENSSH PRIVATE KEY", 1), "$ cat key\n{}")
    return out


def _aws40() -> str:
    """An AWS-style secret: 40 random characters, mixed case (and ``/`` or ``+``)."""
    return _r(19, _ALNUM) + "/" + _r(20, _ALNUM + "+")


PLANTED = planted(16)


#: strings that look like secrets and are not: none gives a finding
TRAPS: list[str] = [
    "commit " + hashlib.sha1(b"trap").hexdigest(),
    "sha256:" + hashlib.sha256(b"trap").hexdigest(),
    hashlib.sha512(b"trap").hexdigest(),
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "0x" + "ab" * 32,
    str(uuid.UUID(int=_rng.getrandbits(128))),
    "request id req_" + uuid.UUID(int=_rng.getrandbits(128)).hex,
    "data:image/png;base64," + base64.b64encode(_rng.randbytes(30_000)).decode(),
    base64.b64encode(_rng.randbytes(50_000)).decode(),
    base64.urlsafe_b64encode(_rng.randbytes(50_000)).decode(),
    '"integrity": "sha512-' + base64.b64encode(_rng.randbytes(64)).decode() + '"',
    "sha384-" + base64.b64encode(_rng.randbytes(48)).decode(),
    "SHA256:" + base64.b64encode(_rng.randbytes(32)).decode().rstrip("="),
    # JSON Web Token lookalikes: a header alone, no signature, not JSON inside, unsigned
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0",
    "eyJ" + _r(40) + ".eyJ" + _r(40) + "." + _r(43),
    _b64url({"alg": "none"}) + "." + _b64url({"sub": "x"}) + ".",
    # placeholders
    "sk-...",
    "sk-ant-...",
    "sk-ant-api03-...",
    "sk-proj-...",
    "YOUR_API_KEY",
    "<token>",
    "xxxx",
    "sk-" + "x" * 48,
    "ghp_" + "x" * 36,
    "ghp_" + "a" * 36,
    "AIzaSy" + "X" * 33,
    "hf_" + "x" * 34,
    "xoxb-your-token",
    "xoxb-123-456-xxxxxxxx",
    "OPENAI_API_KEY=your-api-key-here",
    "ANTHROPIC_API_KEY=sk-ant-" + "x" * 40,
    "API_KEY=<your key>",
    "API_KEY=${API_KEY}",
    "export OPENAI_API_KEY=$OPENAI_API_KEY",
    "AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "PASSWORD=********",
    "Authorization: Bearer <token>",
    "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
    "PYPI_TOKEN=pypi-...",
    "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA...\n-----END RSA PRIVATE KEY-----",
    'if line.startswith("-----BEGIN RSA PRIVATE KEY-----"):',
    # passwords in URLs that are none
    "postgres://user:password@localhost/db",
    "postgres://postgres:postgres@localhost:5432/app",
    "https://user:${TOKEN}@github.com/o/r",
    "mongodb+srv://admin:<password>@cluster0.example.net",
    "https://user:pass@example.com",
    "redis://:changeme@localhost",
    "git@github.com:org/repo.git",
    "ssh://git@github.com:22/org/repo",
    # code and prose around the words
    "max_tokens=4096",
    "MAX_TOKENS=4096",
    "MAX_TOKEN=4096",
    '"input_tokens": 1234',
    "API_KEY=os.environ['API_KEY']",
    "API_KEY = os.getenv('API_KEY')",
    "API_KEY: Optional[str] = None",
    "SECRET_KEY=SECRET_KEY_DEFAULT",
    "PASSWORD: must be at least 8 characters",
    "GOOGLE_APPLICATION_CREDENTIALS=/home/dev/creds.json",
    "SSH_PRIVATE_KEY=~/.ssh/id_rsa",
    "API_KEY=changeme123",
    "PRIMARY KEY (id)",
    "FOREIGN KEY(user_id) REFERENCES users(id)",
    "password=self.password",
    "def login(password=password):",
    "TOKEN=$(gh auth token)",
    "const token = await getToken();",
    "risk-assessment-document-final-version-2024-abcdef",
    "task-" + _r(40),
    "the AWS docs say to use IAM roles",
    "aws s3 cp s3://bucket/key .",
    'ETag: W/"5e8ff9bf55ba3508199d22e984129be6"',
    "npm_config_cache=/tmp/npm",
    "us-east-1a",
    # headers, assignments and base64 around the words, holding nothing
    "Authorization: Bearer $TOKEN",
    "Authorization: Bearer ${{ secrets.API_TOKEN }}",
    '"Authorization": f"Bearer {token}"',
    "authorization: Basic dXNlcjpwYXNz",
    "password: str",
    "password = getpass.getpass()",
    "password=hashed_password",
    "secret_name=my_secret",
    'secret: "changeme-please"',
    "client_secret=${CLIENT_SECRET}",
    "Passwords must match",
    base64.b64encode(b"set API_KEY in your environment, then restart").decode(),
    base64.b64encode(b"the PASSWORD field is required").decode(),
    "AC" + "0" * 32,
    "ACCESS_TOKEN_LIFETIME=3600",
    "Q~ is not a secret on its own",
    "-----BEGIN OPENSSH PRIVATE KEY-----\n<your key here>\n-----END OPENSSH PRIVATE KEY-----",
    # what redaction writes is no secret
    "[REDACTED:openai-key:1a2b3c4d]",
    "API_KEY=[REDACTED:env-assignment:abcd1234]",
    "https://user:[REDACTED:url-credentials:abcd1234]@host",
]
