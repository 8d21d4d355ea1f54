import type { enReview } from "./en-review.ts";

/** The Vietnamese sentences of review before posting (see `enReview`). */
export const viReview: { readonly [K in keyof typeof enReview]: string } = {
  "status.reviewing":
    "Biên bản đang chờ {user} duyệt: chưa có gì được đăng ở đây cho đến khi người đó đăng.",
  "status.discarded": "{user} đã bỏ biên bản: không có biên bản nào được đăng.",
  "status.expired": "Đã bỏ: không ai đăng biên bản trước khi hết hạn.",
  "stage.reviewing": "Đang chờ duyệt",
  "stage.discarded": "Đã bỏ",
  "failure.review_unreachable":
    "Tôi không gửi được biên bản để duyệt qua tin nhắn riêng. Quản trị viên có thể cần cài lại ứng dụng (ứng dụng cần quyền mở tin nhắn riêng), rồi bấm Thử lại.",

  "review.coming": "Biên bản {file} cho {channel} đang được gửi để bạn duyệt…",
  "review.ready":
    "Biên bản {file} cho {channel} đã sẵn sàng để bạn duyệt, trong luồng của tin nhắn này: biên bản, tài liệu Word và bản ghi lời nói. Không ai khác thấy chúng cho đến khi bạn đăng.",
  "review.expires": "Nếu không ai đăng hoặc bỏ, biên bản sẽ hết hạn vào {date}.",
  "review.posted": "{user} đã đăng biên bản này vào {channel}.",
  "review.discarded": "{user} đã bỏ biên bản này: không có gì được đăng trong {channel}.",
  "review.expired":
    "Biên bản này đã hết hạn trước khi có người đăng: không có gì được đăng trong {channel}.",
  "review.replaced":
    "Một phiên bản mới hơn của biên bản đã được gửi để bạn duyệt, ở tin nhắn bên dưới.",
  "review.reminder":
    "Biên bản {file} cho {channel} vẫn đang chờ bạn duyệt và sẽ hết hạn vào ngày mai: hãy đăng hoặc bỏ ở tin nhắn phía trên.",
  "review.fallback": "Biên bản cuộc họp chờ bạn duyệt",
  "review.conversation": "cuộc trò chuyện gốc",
  "button.post_to_thread": "Đăng vào luồng",
  "button.change_names": "Đổi tên",
  "button.discard": "Bỏ",
  "confirm.discard.title": "Bỏ biên bản này?",
  "confirm.discard.text": "Không có gì được đăng vào kênh, và biên bản này không thể đăng sau đó.",
  "confirm.discard.yes": "Bỏ",
  "confirm.discard.no": "Giữ lại",
  "permission.starter_or_admin.post":
    "Chỉ người tạo biên bản này hoặc quản trị viên workspace mới có thể đăng, và chỉ khi đang ở trong kênh của biên bản.",
  "permission.starter_or_admin.discard":
    "Chỉ người tạo biên bản này hoặc quản trị viên workspace mới có thể bỏ, và chỉ khi đang ở trong kênh của biên bản.",
  "command.wrong_stage.review": "Biên bản này không còn chờ duyệt nữa.",

  "settings.review_label": "Duyệt trước khi đăng",
  "settings.review_option": "Gửi biên bản trước cho người đã tạo",
  "settings.review_hint":
    "Biên bản chỉ đến kênh này khi người đó đăng; họ cũng có thể bỏ. Tắt nếu không bật.",
  "settings.change.review_on": "biên bản được gửi trước cho người tạo để duyệt",
  "settings.change.review_off": "biên bản được đăng không cần duyệt",
  "new_notes.review_label": "Duyệt",
  "new_notes.review_option": "Gửi biên bản cho tôi duyệt trước khi đăng",
  "new_notes.review_hint": "Luôn bật ở những kênh có cài đặt yêu cầu duyệt.",
};
